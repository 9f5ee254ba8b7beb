// An atomic extension in JavaScript: it speaks the plugin protocol
// (proto/atomic/plugin/v1) over gRPC with @grpc/grpc-js, which shows that
// the protocol does not depend on Go.
//
// It blocks bash commands containing "node-forbidden", registers the
// /node-hello command (which calls back into the agent to send a message)
// and the node_upper tool (which streams one update).
//
// How a plugin starts (the go-plugin handshake):
//   1. the agent runs the command of atomic-plugin.json with
//      ATOMIC_PLUGIN=extension-host-v1 in the environment;
//   2. the plugin listens on a unix socket and prints one line to stdout:
//      "1|1|unix|<socket path>|grpc" (core version, protocol version 1,
//      network, address, protocol);
//   3. the agent connects, opens the broker stream (plugin.GRPCBroker) and
//      calls Describe with the broker id of its HostService; the broker
//      stream tells the plugin which address serves that id.
// Nothing else may be written to stdout; log to stderr.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

if (process.env.ATOMIC_PLUGIN !== "extension-host-v1") {
  console.error("This is an atomic extension; load it with: atomic -e " + __dirname);
  process.exit(1);
}

const protoRoot = process.env.ATOMIC_PROTO_DIR || path.join(__dirname, "..", "..", "proto");
const loadOpts = { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [protoRoot, __dirname] };
const v1 = grpc.loadPackageDefinition(
  protoLoader.loadSync(["atomic/plugin/v1/plugin.proto", "atomic/plugin/v1/host.proto"], loadOpts)
).atomic.plugin.v1;
const broker = grpc.loadPackageDefinition(protoLoader.loadSync("broker.proto", loadOpts)).plugin;

const json = (v) => Buffer.from(JSON.stringify(v));
const parse = (b) => (b && b.length ? JSON.parse(Buffer.from(b).toString()) : undefined);
const log = (...args) => console.error("[node-example]", ...args);

// Broker: service id → address, filled by the agent's broker stream.
const addresses = new Map();
const waiters = new Map();
function addressOf(id) {
  if (addresses.has(id)) return Promise.resolve(addresses.get(id));
  return new Promise((resolve) => waiters.set(id, resolve));
}

let host = null; // HostService client
async function connectHost(brokerId) {
  if (!brokerId) return;
  const info = await addressOf(brokerId);
  host = new v1.HostService("unix://" + info.address, grpc.credentials.createInsecure());
}

function hostCall(method, req, callId) {
  const md = new grpc.Metadata();
  if (callId) md.set("atomic-call-id", callId);
  return new Promise((resolve, reject) => {
    if (!host) return reject(new Error("no host connection"));
    host[method](req, md, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

const pluginService = {
  Describe(call, cb) {
    connectHost(call.request.hostBrokerId).then(
      () =>
        cb(null, {
          name: "node-example",
          version: "0.1.0",
          protocolVersion: 1,
          capabilities: ["tool.streaming"],
          events: ["tool_call"],
          commands: [{ name: "node-hello", description: "Say hello from Node.js" }],
          tools: [
            {
              name: "node_upper",
              label: "Upper case",
              description: "Returns the text in upper case.",
              parametersJson: json({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
              promptSnippet: "upper-case a text",
            },
          ],
        }),
      (err) => cb(err)
    );
  },

  HandleEvent(call, cb) {
    const ev = parse(call.request.payloadJson);
    if (ev.type === "tool_call" && ev.toolName === "bash" && String(ev.input.command || "").includes("node-forbidden")) {
      return cb(null, { resultJson: json({ block: true, reason: "blocked by the Node.js plugin" }) });
    }
    cb(null, {});
  },

  RunCommand(call, cb) {
    const { name, args, context } = call.request;
    if (name !== "node-hello") return cb(null, { error: "unknown command " + name });
    hostCall(
      "SendMessage",
      { customType: "node-example", contentJson: json("hello from node: " + args), display: true },
      context && context.callId
    ).then(
      () => cb(null, {}),
      (err) => cb(null, { error: String(err.message || err) })
    );
  },

  GetCommandCompletions(call, cb) {
    cb(null, { none: true });
  },

  ExecuteTool(call) {
    const { name, argumentsJson } = call.request;
    const args = parse(argumentsJson) || {};
    if (name !== "node_upper") {
      call.write({ final: true, isError: true, error: "unknown tool " + name });
      return call.end();
    }
    call.write({ final: false, contentJson: json([{ type: "text", text: "working…" }]) });
    call.write({ final: true, contentJson: json([{ type: "text", text: String(args.text).toUpperCase() }]) });
    call.end();
  },
};

const brokerService = {
  StartStream(stream) {
    stream.on("data", (info) => {
      addresses.set(info.serviceId, info);
      const w = waiters.get(info.serviceId);
      if (w) {
        waiters.delete(info.serviceId);
        w(info);
      }
    });
    stream.on("error", () => {});
    stream.on("end", () => stream.end());
  },
};

const server = new grpc.Server();
server.addService(v1.PluginService.service, pluginService);
server.addService(broker.GRPCBroker.service, brokerService);

const dir = process.env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir();
const sock = path.join(dir, "node-plugin-" + process.pid + ".sock");
try {
  fs.unlinkSync(sock);
} catch (_) {}
server.bindAsync("unix://" + sock, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) {
    log("cannot listen:", err.message);
    process.exit(1);
  }
  process.stdout.write(`1|1|unix|${sock}|grpc\n`);
  log("serving on", sock);
});

const stop = () => {
  server.forceShutdown();
  try {
    fs.unlinkSync(sock);
  } catch (_) {}
  process.exit(0);
};
process.on("SIGTERM", stop);
// Do not outlive an agent that was killed before it could stop us.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 500).unref();
process.on("SIGINT", () => {}); // the agent decides when we stop
