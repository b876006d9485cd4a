// Preloaded by test_zulip_js.c (node -r): every HTTP request of the process carries the Host header ZULIP_HOST, the
// organization's host name ("sub.127.0.0.1:port"), while it connects to the address in ZULIP_URL. It stands in for
// the DNS name a real organization has and a test cannot create; zulip-js itself is not changed.
'use strict';

const http = require('http');

const host = process.env.ZULIP_HOST;
if (host) {
  const request = http.request;
  http.request = function requestWithHost(options, ...rest) {
    if (options && typeof options === 'object' && !(options instanceof URL)) {
      options.headers = { ...options.headers, Host: host };
    }
    return request.call(this, options, ...rest);
  };
}
