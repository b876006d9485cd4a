-- wrk script of scripts/bench: requests.lua's requests, paced to a total rate instead of back to back.
--
--   wrk -c C -t T -d 10s -s scripts/bench.d/paced.lua http://127.0.0.1:9991 -- FILE RATE C
--
-- wrk waits delay() ms before each request of a connection (the first one too), so each of the C connections sends
-- one request every C * 1000 / RATE ms on average, drawn uniformly from half to one and a half of that so that the
-- connections do not send in step. The rate reached is a little lower (a connection waits for its answer before its
-- delay starts): the summary line's rps says what it was.

local dir = debug.getinfo(1, "S").source:sub(2):match("^(.*/)") or "./"
dofile(dir .. "requests.lua")

local mean_ms = 0
local paced_init = init

function init(args)
    paced_init(args)
    local rate, connections = tonumber(args[2]), tonumber(args[3])
    assert(rate and rate > 0 and connections and connections > 0, "usage: -- FILE RATE CONNECTIONS")
    mean_ms = connections * 1000 / rate
    math.randomseed(os.time() + (thread_number or 0))
end

function delay()
    return math.floor(mean_ms * (0.5 + math.random()))
end
