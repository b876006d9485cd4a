-- wrk script of scripts/bench: sends the requests of a file round-robin and prints one summary line.
--
--   wrk -c 64 -t 2 -d 10s -s scripts/bench.d/requests.lua http://127.0.0.1:9991 -- FILE
--
-- FILE has one request a line, four tab-separated fields (AUTHORIZATION and BODY may be empty):
--   METHOD <TAB> PATH <TAB> AUTHORIZATION <TAB> BODY
-- A BODY is sent as application/x-www-form-urlencoded; "{n}" in it becomes a counter, different in every request
-- of the thread (for edits, which must change something). Several lines with several users' credentials
-- spread the load over users. The summary line (read by scripts/bench) is
--   BENCH rps=... p50_ms=... p99_ms=... requests=... non2xx=... errors=...

local requests = {}
local next_index = 0
local threads = 0

function setup(thread)
    thread:set("thread_number", threads)
    threads = threads + 1
end

function init(args)
    local f = assert(io.open(args[1]), "cannot open request file " .. tostring(args[1]))
    for line in f:lines() do
        local method, path, auth, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
        assert(method, "bad request line: " .. line)
        local headers = {}
        if auth ~= "" then
            headers["Authorization"] = auth
        end
        if body == "" then
            body = nil
        else
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        end
        if body and body:find("{n}", 1, true) then
            requests[#requests + 1] = {method, path, headers, body}
        else
            requests[#requests + 1] = wrk.format(method, path, headers, body)
        end
    end
    f:close()
    assert(#requests > 0, "no requests in " .. args[1])
    -- Threads start at different lines, so that they do not all use the same user at once.
    next_index = (thread_number or 0) * 7 % #requests
end

local counter = 0

function request()
    next_index = next_index % #requests + 1
    local r = requests[next_index]
    if type(r) == "table" then
        counter = counter + 1
        local body = r[4]:gsub("{n}", (thread_number or 0) .. "x" .. counter)
        return wrk.format(r[1], r[2], r[3], body)
    end
    return r
end

function done(summary, latency, _)
    local e = summary.errors
    io.write(string.format("BENCH rps=%.1f p50_ms=%.3f p99_ms=%.3f requests=%d non2xx=%d errors=%d\n",
        summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
        latency:percentile(99) / 1000, summary.requests, e.status, e.connect + e.read + e.write + e.timeout))
end
