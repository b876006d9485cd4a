#!/usr/bin/python3
"""Accepts an invitation in a real browser: Debian's headless chromium, driven through the DevTools protocol.

    join_browser.py LINK FULL_NAME PASSWORD SCREENSHOT_DIR
    join_browser.py --email ADDRESS LINK SCREENSHOT_DIR

Opens LINK (the /join/<key>/ page of an invitation mail), types the name and the password into the form, takes a
screenshot of the filled form (SCREENSHOT_DIR/join-form.png), submits it, takes a screenshot of the page that
follows (join-done.png) and prints one JSON object: {"form": {...}, "done": {...}} with what each page shows
(status, title, heading, the invited address, the server URL and email of the last page, cookies set).
With --email, LINK is a reusable link: the driver types ADDRESS into its form (join-email.png), submits it and
prints {"form": {...}, "sent": {...}} (join-sent.png, the page naming where the confirmation link went).
Used by the join:browser integration test (tests/integration/test_join.c). Python's standard library only: the
protocol runs over --remote-debugging-pipe (NUL-terminated JSON messages on file descriptors 3 and 4), so no
WebSocket client, npm package or browser download is needed. Exit status 1 with a message on stderr on failure.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

CHROMIUM = os.environ.get("CONFAB_CHROMIUM", "/usr/bin/chromium")
TIMEOUT = 60


class Browser:
    def __init__(self, profile):
        # Our ends: we write commands to the browser's fd 3 and read its answers from its fd 4.
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
                "--window-size=900,900", "--remote-debugging-pipe", f"--user-data-dir={profile}",
                # Organizations live at subdomains of the test host (acme.127.0.0.1:PORT): resolve them all.
                "--host-resolver-rules=MAP * 127.0.0.1", "about:blank"]

        def child_fds():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.proc = subprocess.Popen(args, preexec_fn=child_fds, pass_fds=(3, 4), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            # A page that never comes (a form the browser refuses to submit) must end in an error, not a hang.
            ready, _, _ = select.select([self.from_browser], [], [], max(0.0, deadline - time.time()))
            if not ready:
                raise RuntimeError("timed out waiting for the browser")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its DevTools pipe")
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + TIMEOUT
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, check=lambda params: True):
        deadline = time.time() + TIMEOUT
        while True:
            for i, m in enumerate(self.events):
                if m["method"] == method and check(m.get("params", {})):
                    del self.events[i]
                    return m.get("params", {})
            self.events.append(self._read_message(deadline))
            if "method" not in self.events[-1]:
                self.events.pop()

    def evaluate(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"script failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


PAGE_STATE = """(() => {
  const text = id => { const e = document.getElementById(id); return e ? e.textContent.trim() : null; };
  return {title: document.title, heading: document.querySelector("h1") ? document.querySelector("h1").textContent : null,
          invited_email: text("invited-email"), server_url: text("server-url"), login_email: text("login-email"),
          sent_email: text("sent-email"), has_password: !!document.getElementById("password"),
          has_form: !!document.querySelector("form"), error: text("form-error"), url: location.href};
})()"""


def type_into(browser, element_id, value):
    browser.evaluate(f"document.getElementById({json.dumps(element_id)}).focus()")
    browser.send("Input.insertText", {"text": value})


def document_status(browser):
    """The HTTP status of the next page the tab loads (not of its favicon)."""
    params = browser.wait_event("Network.responseReceived", lambda p: p.get("type") == "Document")
    return params["response"]["status"]


def fill_and_submit(browser, fields, shots, before, after):
    """Types fields (id -> value) into the page's form, submits it with a real click; the two pages' states."""
    for element_id, value in fields:
        type_into(browser, element_id, value)
    form = browser.evaluate(PAGE_STATE)
    browser.screenshot(os.path.join(shots, before))
    browser.events.clear()
    # A real click on the button: the browser builds and posts the form, hidden CSRF field included.
    browser.evaluate("document.querySelector('button[type=submit]').click()")
    done_status = document_status(browser)
    browser.wait_event("Page.loadEventFired")
    done = browser.evaluate(PAGE_STATE)
    done["status"] = done_status
    done["cookies"] = [c["name"] for c in browser.send("Network.getCookies").get("cookies", [])]
    browser.screenshot(os.path.join(shots, after))
    return form, done


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == "--email":
        address, link, shots = args[1:]
        fields, names = [("email", address)], ("form", "sent", "join-email.png", "join-sent.png")
    elif len(args) == 4:
        link, full_name, password, shots = args
        fields, names = [("full_name", full_name), ("password", password)], ("form", "done", "join-form.png",
                                                                             "join-done.png")
    else:
        sys.exit(__doc__)
    os.makedirs(shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="confab-chromium-")
    browser = Browser(profile)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        browser.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                       session=False)["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            browser.send(f"{domain}.enable")
        browser.send("Page.navigate", {"url": link})
        form_status = document_status(browser)
        browser.wait_event("Page.loadEventFired")
        form, done = fill_and_submit(browser, fields, shots, names[2], names[3])
        form["status"] = form_status
        print(json.dumps({names[0]: form, names[1]: done}))
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        sys.exit(f"join_browser.py: {e}")
