//! Arbitrary bytes as the JSON arguments of each tool, natively, against a gateway whose
//! answers take the tools a long way. Input: `<tool><caller><config>` selector bytes, then
//! the arguments (see `src/lib.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use session_tools_fuzz::{default_answers, run_tool, Input};

fuzz_target!(|data: &[u8]| {
    let input = Input::parse(data);
    let args = input.text();
    run_tool(&input, &args, default_answers());
});
