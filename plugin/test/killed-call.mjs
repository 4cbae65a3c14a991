// A process killed in the middle of a tool call (run by exactly-once.test.mjs):
// `node killed-call.mjs <stateDir> <record>` makes the flows' send, through a gateway that
// appends every request it receives to `<record>` (one JSON line each) and, at the call's
// first `agent`, kills this process with SIGKILL before answering. The test gives the
// recorded requests to its own gateway (which so took the run), and what is left on disk
// is what a gateway process that died there leaves.

import { appendFileSync } from 'node:fs';

import { Runtime } from '../lib/sandbox.mjs';
import { FlowGateway, flowService, REQUESTER, SEND } from './flows.mjs';
import { COMPONENT_DIR } from './helpers.mjs';

const [stateDir, record] = process.argv.slice(2);
if (!stateDir || !record) throw new Error('usage: node killed-call.mjs <stateDir> <record>');

const gateway = new FlowGateway();
gateway.before = async (method, params) => {
  appendFileSync(record, `${JSON.stringify({ method, params })}\n`);
  if (method === 'agent') {
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => {});
  }
};
const service = flowService(new Runtime(COMPONENT_DIR), stateDir, gateway);
await service.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND);
throw new Error('the call ended: the process was not killed at its first agent call');
