#!/usr/bin/env python3
"""Writes the seed corpora of the host-side targets from the sample state
(`examples/openclaw-state`): `corpus/disk_transcript`, `corpus/disk_store`,
`corpus/disk_runs`, `corpus/disk_jobs` and `corpus/gateway_calls`, as files named `seed-*`
(libFuzzer adds its own, named by hash, beside them).

The runs registry and job files have the shapes the host writes (taken from a
`session-tools call --wait 0` of `sessions_send` and `sessions_spawn` on a copy of the
sample state), with times relative to the targets' fixed clock. `gateway_calls` inputs are
encoded as `arbitrary::Unstructured` reads them (see that target's `call`).

Run from `fuzz/`: `python3 make_seeds.py`.
"""

import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "examples", "openclaw-state")
NOW = 1_767_225_600_000
DISCORD = "agent:main:discord:channel:1187421193829244938"
DISCORD_ID = "8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f"


def out(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def read(path):
    with open(os.path.join(SAMPLE, path), "rb") as f:
        return f.read()


def line(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --- disk_transcript ---------------------------------------------------------------------
for agent in ["main", "ops"]:
    d = os.path.join(SAMPLE, "agents", agent, "sessions")
    for name in sorted(os.listdir(d)):
        if ".jsonl" in name:
            out("disk_transcript", f"{agent}-{name.split('.')[0][:8]}{'-deleted' if 'deleted' in name else ''}", read(os.path.join("agents", agent, "sessions", name)))

discord = read(f"agents/main/sessions/{DISCORD_ID}.jsonl")
last_id = json.loads(discord.decode().strip().split("\n")[-1])["id"]


def user(id_, parent, text):
    return line({"type": "message", "id": id_, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
                 "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": NOW}})


texts = {
    "spanish-hint": "[message_id: 1]\nGracias, señor",
    "portuguese": "Obrigação cumprida, até amanhã! ção ão õe",
    "chinese": "谢谢你的帮助，朋友们\n[MESSAGE_ID: é]",
    "emoji-zwj": "👩‍👩‍👧‍👦 family 🏳️‍🌈 flags 👍🏽",
    "combining": "e\u0301e\u0301 n\u0303 a\u0308\u0301",
    "envelope": "[Discord Guild #x +5m 2026-01-01 10:00 UTC] name: hola señor",
    "envelope-crlf": "[WhatsApp +1 2026-01-26T10:00Z] alice: hi\r\n [message_id: 7] \r\nbye",
}
for name, text in texts.items():
    out("disk_transcript", f"hand-{name}", discord + (user("abcd1234", last_id, text) + "\n").encode())
out("disk_transcript", "hand-empty", b"")
out("disk_transcript", "hand-no-header", user("a1", None, "hi") + "\n")
out("disk_transcript", "hand-cut-last-line", discord + b'{"type":"message","id":"cut","message":{"role":"assis')
out("disk_transcript", "hand-invalid-utf8", discord + b'{"type":"message","id":"bad1","parentId":"x","message":{"role":"user","content":"bad \xff\xfe\xc3 bytes"}}\n')
out("disk_transcript", "hand-crlf", discord.replace(b"\n", b"\r\n"))
out("disk_transcript", "hand-duplicate-keys", discord + b'{"type":"message","id":"a1","id":"b2","message":{"role":"user","role":"assistant","content":"dup"}}\n')
out("disk_transcript", "hand-big-number-id", discord + b'{"type":"message","id":1e400,"message":{"role":"assistant","content":[{"type":"text","text":"n"}],"n":1e400}}\n')
out("disk_transcript", "hand-lone-surrogate", discord + b'{"type":"message","id":"\\ud800","message":{"role":"user","content":"\\udc00 x"}}\n')
out("disk_transcript", "hand-non-object-lines", discord + b'[1,2]\n"text"\nnull\n{"message":null}\n')
out("disk_transcript", "hand-header-only", line({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}) + "\n")

# --- disk_store --------------------------------------------------------------------------
main_store = read("agents/main/sessions/sessions.json")
out("disk_store", "main", main_store)
out("disk_store", "ops", read("agents/ops/sessions/sessions.json"))
store = json.loads(main_store)
legacy = dict(store)
legacy["main"] = {"sessionId": "legacy-main", "updatedAt": 1, "label": "old"}
legacy["discord:channel:1187421193829244938"] = {"sessionId": DISCORD_ID, "updatedAt": 2, "provider": "discord"}
out("disk_store", "hand-legacy-keys", json.dumps(legacy, indent=2, ensure_ascii=False))
small = {"agent:main:main": {"sessionId": "5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f", "updatedAt": 1769418144500, "label": "señor 谢谢"}}
out("disk_store", "hand-small", json.dumps(small, ensure_ascii=False))
out("disk_store", "hand-json5", "{ // a comment\n 'agent:main:main': {sessionId: '5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f', updatedAt: 1, provider: 'discord',},\n \"k\": [1, 2,], }")
out("disk_store", "hand-truncated", main_store[:400])
out("disk_store", "hand-array", "[]")
out("disk_store", "hand-junk", "junk \x00 junk")
out("disk_store", "hand-number", "42")
out("disk_store", "hand-whitespace", " \n\t ")
out("disk_store", "hand-not-utf8", b'{"agent:main:main": {"sessionId": "s\xff"}}')
out("disk_store", "hand-non-object-entries", '{"agent:main:main": 5, "x": null, "y": [1], "z": "s"}')
out("disk_store", "hand-big-number", '{"agent:main:main": {"sessionId": "5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f", "updatedAt": 1e400}}')
out("disk_store", "hand-lone-surrogate", '{"agent:main:main": {"sessionId": "5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f", "label": "\\ud800"}}')
out("disk_store", "hand-duplicate-keys", '{"agent:main:main": {"sessionId": "a"}, "agent:main:main": {"sessionId": "b", "label": "x"}}')
out("disk_store", "hand-label-taken", '{"agent:main:main": {"sessionId": "a"}, "agent:main:other": {"sessionId": "b", "label": "fuzz-label"}}')
out("disk_store", "hand-deep", "{\"a\":" * 200 + "1" + "}" * 200)

# --- disk_runs ---------------------------------------------------------------------------
owner = "8bc3ca5f-b9c2-411e-9263-040b2a24f98c"


def finished(status, started, ended, **more):
    f = {"status": status, "startedAt": started, "endedAt": ended}
    f.update(more)
    return f


runs = {
    "79f7a505-093a-4cfd-9dd2-cad3ade38d2f": {"sessionKey": DISCORD, "startedAt": NOW - 5000, "owner": owner,
                                             "finished": finished("ok", NOW - 5000, NOW - 4999, reply="echo: ping", usage={"inputTokens": 36.0, "outputTokens": 3.0}, model="echo/echo-1")},
    "4690bf67-7c21-4a46-a9b4-f6a9b726ab2b": {"sessionKey": "agent:main:subagent:4f2e5b62-8ff7-4b4d-a19c-5434b7e108e1", "startedAt": NOW - 3000, "owner": owner},
    "1280b9d8-c2c8-4f6d-9a78-cb54b178c6c3": {"sessionKey": "agent:main:main", "startedAt": NOW - 900_000,
                                             "finished": finished("error", NOW - 900_000, NOW - 800_000, error="the run was interrupted")},
}
out("disk_runs", "three-runs", json.dumps({"version": 1, "runs": runs}, indent=2))
out("disk_runs", "empty", json.dumps({"version": 1, "runs": {}}))
out("disk_runs", "old-pid-owner", json.dumps({"version": 1, "runs": {"r": {"sessionKey": "agent:main:main", "startedAt": NOW, "owner": 4242}}}))
out("disk_runs", "timeout", json.dumps({"version": 1, "runs": {"t": {"sessionKey": "agent:ops:main", "startedAt": NOW - 10, "finished": finished("timeout", NOW - 10, NOW, error="the run timed out after 1s and was stopped")}}}))
out("disk_runs", "extreme-times", json.dumps({"version": 1, "runs": {"x": {"sessionKey": "k", "startedAt": -9223372036854775808, "finished": finished("ok", -9223372036854775808, -9223372036854775808)}}}))
out("disk_runs", "truncated", '{"version": 1, "runs": [tru')
out("disk_runs", "sample-subagents", read("subagents/runs.json"))

# --- disk_jobs ---------------------------------------------------------------------------
caller = {"agentSessionKey": "agent:main:main", "agentChannel": "discord", "agentAccountId": None, "agentTo": None, "agentThreadId": None,
          "agentGroupId": None, "agentGroupChannel": None, "agentGroupSpace": None, "sandboxed": False, "requesterAgentIdOverride": None}


def job(id_, kind, session, state, wake, agent="main", caller=caller, **more):
    j = {"id": id_, "kind": kind, "sessionKey": session, "state": json.dumps(state, ensure_ascii=False, separators=(",", ":")), "wake": wake, "agent": agent, "caller": caller}
    j.update(more)
    return json.dumps(j, indent=2, ensure_ascii=False)


a2a = {"targetKey": DISCORD, "displayKey": DISCORD, "message": "ping", "announceTimeoutMs": 30000, "maxTurns": 5, "requesterKey": "agent:main:main",
       "requesterDisplay": "main", "requesterChannel": "discord", "distinctSessions": True, "primary": None, "latest": None, "target": None, "turn": 0,
       "current": "", "next": "", "phase": {"phase": "awaitPrimary", "run_id": "04fc0f1b-2608-4277-afcb-5fa44437ecba"}}
out("disk_jobs", "a2a-await-primary", job("391d69f0-6244-483b-a43c-acd757c6ef48", "a2a", "agent:main:main", a2a,
                                          {"type": "runEnd", "wait": {"runId": "04fc0f1b-2608-4277-afcb-5fa44437ecba", "timeoutMs": 30000}}))
a2a_ops = dict(a2a, targetKey="agent:main:main", displayKey="agent:main:main", message="hola, ¿qué tal? 谢谢 🎉", requesterKey="agent:ops:main", requesterChannel=None)
out("disk_jobs", "a2a-from-ops", job("f97f9a13-92b3-4a71-9646-fd375799db30", "a2a", "agent:ops:main", a2a_ops, {"type": "now"}, agent="ops",
                                     caller=dict(caller, agentSessionKey="agent:ops:main", agentChannel=None)))
sub = {"runId": "1d6ac2df-7c94-4ae5-acce-0a5bc5c49ca7", "childSessionKey": "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
       "requesterSessionKey": "agent:main:main", "requesterDisplayKey": "main", "task": "summarise the incidents", "cleanup": "delete",
       "label": "seed-worker", "waitTimeoutMs": 30000, "createdAt": NOW - 1000, "startedAt": NOW - 1000, "phase": {"phase": "awaitRun"}}
out("disk_jobs", "subagent-await-run", job("cef7da11-0fb9-4c60-af84-b60707f26c93", "subagent", "agent:main:main", sub,
                                           {"type": "runEnd", "wait": {"runId": "1d6ac2df-7c94-4ae5-acce-0a5bc5c49ca7", "timeoutMs": 30000}}, steps=3))
archive = {"childSessionKey": "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b", "requesterSessionKey": "agent:main:main", "archiveAtMs": NOW - 1}
out("disk_jobs", "archive-due", job("62dc7fdf-b4af-45c7-8be1-66318d273b74", "archive", "agent:main:main", archive, {"type": "at", "at": NOW - 1}))
out("disk_jobs", "archive-later", job("62dc7fdf-b4af-45c7-8be1-66318d273b74", "archive", "agent:main:main", dict(archive, archiveAtMs=NOW + 3_600_000),
                                      {"type": "at", "at": NOW + 3_600_000}))
out("disk_jobs", "sandboxed-caller", job("j1", "a2a", "agent:main:main", a2a, {"type": "now"}, caller=dict(caller, sandboxed=True)))
out("disk_jobs", "unknown-kind", job("j2", "mystery", "agent:main:main", {}, {"type": "now"}))
out("disk_jobs", "truncated", '{"id": "j3", "kind": "a2a", "state": "{\\"targetKey\\"')
out("disk_jobs", "not-json", "this is not a job")

# --- gateway_calls -----------------------------------------------------------------------
# Choices as the target reads them: one byte per `int_in_range` of at most 256 values (its
# offset from the start), one per `bool` (the low bit), one per `choose` (the index).
KEYS = ["agent:main:main", DISCORD, "agent:main:cron:2f6c8a10-4d3e-4b5a-9c7d-8e1f0a2b3c4d", "agent:main:hook:7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b", "agent:main:telegram:group:-1001234567890", "agent:ops:main",
        "agent:ops:slack:channel:c07abcdef12"]


def key(i):
    return bytes([0, i])


def sid(i):
    return bytes([1, i])


def label(i):
    return bytes([2, i])


def awkward(i):
    return bytes([3, i])


NONE = b"\x00"


def some(b):
    return b"\x01" + b


def u32small(v):  # `small`: 1 => 1..=5
    return bytes([1, v - 1])


def calls(*cs):
    return bytes([len(cs) - 1]) + b"".join(cs)


def list_call(limit=NONE, label_=NONE, spawned=NONE, agent=NONE, search=NONE):
    return bytes([0]) + limit + NONE + b"\x00" + b"\x00" + spawned + label_ + agent + search


def resolve(k=NONE, s=NONE, l=NONE):
    return bytes([1]) + k + s + l + NONE + NONE + b"\x00" + b"\x00"


def history(k, limit=NONE):
    return bytes([2]) + k + limit


def histories(*hs):
    return bytes([3, len(hs)]) + b"".join(k + limit for k, limit in hs)


def agent(message, session, idem, channel=NONE, label_=NONE):
    return bytes([4]) + message + some(session) + idem + b"\x00" + channel + NONE + NONE + NONE + NONE + label_ + NONE + NONE + NONE + NONE


def wait(run, ms=5):
    return bytes([5]) + run + bytes([ms])


def send(to, message, idem, channel=NONE):
    return bytes([6]) + to + message + channel + NONE + idem


def patch(k, label_=NONE, model=NONE):
    return bytes([7]) + k + label_ + model


def delete(k, transcript=True):
    return bytes([8]) + k + bytes([1 if transcript else 0])


out("gateway_calls", "list-all", calls(list_call()))
out("gateway_calls", "list-filters", calls(list_call(limit=some(u32small(2)), label_=some(label(0))), list_call(spawned=some(key(0))), list_call(agent=some(awkward(2)))))
out("gateway_calls", "resolve", calls(resolve(k=some(key(1))), resolve(s=some(sid(1))), resolve(l=some(label(1))), resolve(k=some(awkward(11)))))
out("gateway_calls", "history", calls(history(key(1), some(u32small(3))), history(awkward(2)), history(key(6), some(bytes([0])))))
out("gateway_calls", "histories", calls(histories((key(0), NONE), (key(1), some(u32small(1))), (awkward(11), NONE))))
out("gateway_calls", "agent-then-wait", calls(agent(awkward(17), key(1), awkward(18), channel=some(awkward(22))), wait(awkward(18)), history(key(1), some(u32small(2)))))
out("gateway_calls", "agent-new-session", calls(agent(awkward(18), awkward(10), awkward(19), label_=some(awkward(21))), list_call(), resolve(l=some(awkward(21)))))
out("gateway_calls", "send", calls(send(key(1), awkward(17), awkward(20), channel=some(awkward(22))), send(awkward(0), awkward(17), awkward(20))))
out("gateway_calls", "patch-label", calls(patch(key(1), label_=some(label(0))), patch(key(4), label_=some(awkward(21))), patch(awkward(2), label_=some(awkward(1)))))
out("gateway_calls", "delete", calls(delete(key(2)), delete(key(0)), delete(awkward(11), False), list_call()))

print("seeds written to", os.path.join(HERE, "corpus"))
