// Preload for Node test servers: every TCP listen binds 127.0.0.1 only.
//
//   NODE_OPTIONS="--require /path/to/bind_loopback.cjs" PORT=0 mcp-server-everything streamableHttp
//
// Wraps net.Server.prototype.listen (http.Server inherits it), so `app.listen(PORT)`
// of an Express app that would bind every interface binds the loopback address instead.
// Pipe paths and handles are left alone. With MCP_BIND_LOOPBACK_REPORT=<file>, each
// listening TCP server appends "<port>\n" to that file (use PORT=0 to get a free port
// without a race, then read the port from the file). With MCP_EXIT_ON_STDIN_EOF=1 the process
// exits when its stdin reaches EOF.
"use strict";

const net = require("net");
const fs = require("fs");

const HOST = "127.0.0.1";
const originalListen = net.Server.prototype.listen;

function isPort(value) {
  if (typeof value === "number") return true;
  return typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value));
}

function report(server) {
  const file = process.env.MCP_BIND_LOOPBACK_REPORT;
  if (!file) return;
  const address = server.address();
  if (address && typeof address === "object") {
    fs.appendFileSync(file, `${address.port}\n`);
  }
}

// MCP_EXIT_ON_STDIN_EOF=1: exit when stdin reaches EOF (the parent that holds the pipe died).
if (process.env.MCP_EXIT_ON_STDIN_EOF === "1") {
  process.stdin.on("data", () => {});
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
}

net.Server.prototype.listen = function listen(...args) {
  const callback = typeof args[args.length - 1] === "function" ? args.pop() : undefined;
  let options = null;
  const first = args[0];
  if (first === undefined || first === null || isPort(first)) {
    // listen(), listen(port[, host][, backlog])
    options = { port: first === undefined || first === null ? 0 : Number(first) };
    const backlog = args.find((value, index) => index > 0 && typeof value === "number");
    if (backlog !== undefined) options.backlog = backlog;
  } else if (typeof first === "object" && first.path === undefined && first.fd === undefined &&
             first._handle === undefined && first.handle === undefined) {
    // listen({port, host, ...})
    options = { ...first };
  }
  if (options === null) {
    // a pipe path or a handle: not TCP, nothing to force
    return originalListen.call(this, ...args, ...(callback ? [callback] : []));
  }
  options.host = HOST;
  delete options.ipv6Only;
  this.once("listening", () => report(this));
  return callback ? originalListen.call(this, options, callback) : originalListen.call(this, options);
};
