//! Arbitrary JSON as gateway answers, converted with the host's `wire` functions and fed
//! to the tools and the flows they start (ping-pong, announces, sub-agent runs), natively.
//! Input: `<tool><caller><config>` selector bytes, then `[answer, …]` or
//! `{"args": …, "answers": […]}`; each gateway call takes the next answer whatever its
//! method, `{"error": …}` being an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use session_tools_fuzz::{run_tool, Input};

fuzz_target!(|data: &[u8]| {
    let input = Input::parse(data);
    if let Some((args, answers)) = input.answers() {
        run_tool(&input, &args, answers);
    }
});
