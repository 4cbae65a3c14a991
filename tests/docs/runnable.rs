//! The shell blocks of the pages a person follows (README.md, CONTRIBUTING.md, SECURITY.md,
//! BENCHMARKS.md and every page under `docs/`) are run, or at least read, by this test.
//!
//! Marking rules, by the fence's info string:
//!
//! - ` ```sh ` — run. The block is one `sh -e` script, in a temporary directory, with
//!   `HOME` a temporary home whose `~/.openclaw` is a fresh copy of `examples/openclaw-state`
//!   (so `~/.openclaw` means the sample state, and no file of the real home is read or
//!   written), the `XDG_*` directories inside that home, no `OPENCLAW_*` variable, and
//!   `session-tools` on `PATH` meaning the command line this package builds (`st-cli`, the
//!   same source as the product binary). Every command must succeed (exit 0). Keep such
//!   blocks short and safe: they run on every `cargo test --release`.
//! - ` ```sh needs-gateway ` — needs a running OpenClaw gateway. Here, in the fast tier,
//!   each `session-tools` command of the block is parsed by the command line's own
//!   definition (a command or option that does not exist fails); the block is run in the
//!   OpenClaw tier (`tests/openclaw/docs_gateway.rs`), against a real gateway on the same
//!   temporary home's `~/.openclaw`, where `ws://127.0.0.1:18789` stands for its address
//!   and `$OPENCLAW_GATEWAY_TOKEN` is its token.
//! - ` ```sh no-run ` — shown only: installs, builds and anything that changes the machine
//!   or runs for long (`cargo`, `rustup`, `npm`, `openclaw plugins install`, a server). Its
//!   `session-tools` commands are parsed as above. The README's two set-up commands are
//!   of this kind: CI runs the tests command (`.ci/run`), `the_readme_set_up_commands_are_what_ci_runs`
//!   holds the README to it, and `the_readme_demo_runs_and_keeps_its_state` runs the demo.
//! - ` ```sh mcp-client=NAME ` (and ` ```json mcp-client=NAME `) — an MCP client's
//!   set-up, run by `tests/cli/mcp_snippets.rs` with a real MCP client, not here.
//!
//! Any other shell fence (` ```bash `, ` ```shell `, ` ```console `) or an unknown mark
//! fails: every shell block is classified.

use session_tools_tests::doc_pages::{
    kind, pages, parse_session_tools_commands, read, refused_by_the_definition, root, runs_session_tools, shown, simple_commands,
    split_blocks, Block, Kind, Sandbox,
};

#[test]
fn the_shell_blocks_of_the_pages_run() {
    let mut problems = Vec::new();
    let mut counts = [0usize; 4];
    for page in pages() {
        let (blocks, _) = split_blocks(&read(&page));
        for block in blocks {
            let at = format!("{}:{}", shown(&page), block.line);
            let kind = match kind(&block) {
                None => continue,
                Some(Err(problem)) => {
                    problems.push(format!("{at}: {problem}"));
                    continue;
                }
                Some(Ok(kind)) => kind,
            };
            match kind {
                Kind::McpClient => counts[3] += 1,
                Kind::NeedsGateway | Kind::NoRun => {
                    counts[if kind == Kind::NoRun { 2 } else { 1 }] += 1;
                    problems.extend(parse_session_tools_commands(&block).into_iter().map(|p| format!("{at}: {p}")));
                }
                Kind::Run => {
                    counts[0] += 1;
                    let parsed = parse_session_tools_commands(&block);
                    if !parsed.is_empty() {
                        problems.extend(parsed.into_iter().map(|p| format!("{at}: {p}")));
                        continue;
                    }
                    if !runs_session_tools(&block) {
                        problems.push(format!("{at}: a runnable block runs no `session-tools` command: mark it no-run"));
                        continue;
                    }
                    if let Err(why) = Sandbox::new().run(&block.body) {
                        problems.push(format!("{at}: the block failed:\n{}\n{why}", block.body));
                    }
                }
            }
        }
    }
    assert!(counts[0] >= 3, "only {} runnable blocks found (run, needs-gateway, no-run, mcp-client: {counts:?})", counts[0]);
    assert!(problems.is_empty(), "shell blocks of the pages:\n\n{}", problems.join("\n\n"));
}

/// The README's two set-up commands, exactly as a person types them on a fresh machine.
const SET_UP: [&str; 2] = [
    "rustup target add wasm32-wasip2 && cargo run --release --bin session-tools -- demo",
    "rustup target add wasm32-wasip2 && cargo test --release",
];

#[test]
fn the_readme_set_up_commands_are_what_ci_runs() {
    let (blocks, _) = split_blocks(&read(&root().join("README.md")));
    for command in SET_UP {
        assert!(
            blocks.iter().any(|b| b.info == "sh no-run" && b.body.lines().any(|l| l.trim() == command)),
            "README.md shows `{command}` in a ```sh no-run block (this test must not run it again)"
        );
    }
    let ci = read(&root().join(".ci/run"));
    assert!(ci.lines().any(|l| l.trim() == SET_UP[1]), ".ci/run runs the README's test command `{}`", SET_UP[1]);
    // The demo command's build is the tests' build (same features); the demo itself is run
    // by `the_readme_demo_runs_and_keeps_its_state`.
}

/// The README's first command, past its build: `session-tools demo`, twice in one
/// directory, as the README says (the second run starts from the first run's state).
#[test]
fn the_readme_demo_runs_and_keeps_its_state() {
    let sandbox = Sandbox::new();
    let first = sandbox.run("session-tools demo").unwrap_or_else(|why| panic!("session-tools demo: {why}"));
    assert!(sandbox.dir.path().join("work/demo-state").is_dir(), "the demo keeps its state in ./demo-state:\n{first}");
    sandbox.run("session-tools demo").unwrap_or_else(|why| panic!("session-tools demo, run again: {why}"));
}

#[test]
fn shell_words_are_split_as_sh_splits_them() {
    let script = "session-tools --state ~/.openclaw \\\n  call --as agent:main:main sessions_list '{\"limit\": 2}' # a comment\n\
                  echo \"a \\\"b\\\"\" | wc -l && true; false\n# only a comment\n";
    let commands = simple_commands(script).unwrap();
    assert_eq!(
        commands,
        [
            vec!["session-tools", "--state", "~/.openclaw", "call", "--as", "agent:main:main", "sessions_list", "{\"limit\": 2}"],
            vec!["echo", "a \"b\""],
            vec!["wc", "-l"],
            vec!["true"],
            vec!["false"],
        ]
    );
    assert!(simple_commands("echo 'open").is_err());
    assert!(refused_by_the_definition(&["session-tools".into(), "no-such-command".into()]).is_some());
    assert!(refused_by_the_definition(&["session-tools".into(), "--help".into()]).is_none());
}

#[test]
fn blocks_are_classified_by_their_marks() {
    let block = |info: &str| Block { info: info.into(), body: String::new(), line: 1 };
    assert_eq!(kind(&block("sh")), Some(Ok(Kind::Run)));
    assert_eq!(kind(&block("sh needs-gateway")), Some(Ok(Kind::NeedsGateway)));
    assert_eq!(kind(&block("sh no-run")), Some(Ok(Kind::NoRun)));
    assert_eq!(kind(&block("sh mcp-client=claude-code")), Some(Ok(Kind::McpClient)));
    assert!(matches!(kind(&block("bash")), Some(Err(_))));
    assert!(matches!(kind(&block("sh maybe")), Some(Err(_))));
    assert_eq!(kind(&block("json")), None);
}
