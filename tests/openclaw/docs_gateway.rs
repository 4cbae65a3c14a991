//! The pages' ` ```sh needs-gateway ` blocks, run against a real OpenClaw gateway (the
//! fast tier only parses them: see `tests/docs/runnable.rs` for the marking rules).
//!
//! One gateway of the default package is started on the temporary home's `~/.openclaw` (a
//! copy of the sample state). In a block, `ws://127.0.0.1:18789` (OpenClaw's default
//! address) stands for that gateway's address, and `$OPENCLAW_GATEWAY_TOKEN` is its token.
//! Every command of a block must succeed.

use session_tools_tests::doc_pages::{kind, pages, read, shown, split_blocks, Kind, Sandbox};
use session_tools_tests::openclaw::{Gateway, GatewayOptions};

/// OpenClaw's default gateway address, as the pages write it.
const PAGE_ADDRESS: &str = "ws://127.0.0.1:18789";

#[test]
fn the_blocks_that_need_a_gateway_run_against_a_real_one() {
    let blocks: Vec<_> = pages()
        .into_iter()
        .flat_map(|page| {
            let (blocks, _) = split_blocks(&read(&page));
            let name = shown(&page);
            blocks.into_iter().filter(|b| matches!(kind(b), Some(Ok(Kind::NeedsGateway)))).map(move |b| (format!("{name}:{}", b.line), b))
        })
        .collect();
    assert!(!blocks.is_empty(), "no ```sh needs-gateway block found in the pages: the README shows one");

    let sandbox = Sandbox::new();
    let gateway = Gateway::start(&sandbox.home().join(".openclaw"), GatewayOptions::default())
        .unwrap_or_else(|e| panic!("starting the real OpenClaw gateway failed:\n{e}"));
    let mut problems = Vec::new();
    for (at, block) in &blocks {
        let script = block.body.replace(PAGE_ADDRESS, &gateway.url());
        if let Err(why) = sandbox.run_with(&script, &[("OPENCLAW_GATEWAY_TOKEN", gateway.token())]) {
            problems.push(format!("{at}: the block failed against {}:\n{}\n{why}", gateway.url(), block.body));
        }
    }
    assert!(problems.is_empty(), "{}\n\nthe gateway's log:\n{}", problems.join("\n\n"), gateway.log_tail(40));
}
