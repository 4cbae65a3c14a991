use std::process::ExitCode;

use session_tools_host::conformance;
use session_tools_host::engine::EngineOptions;
use session_tools_host::limits::Limits;
use session_tools_host::sandbox::Runtime;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let dir = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "../shared/conformance/cases".into());
    let runtime = Runtime::new(
        session_tools_host::COMPONENT,
        &EngineOptions::default(),
        &Limits::default(),
    )
    .expect("runtime");
    let files = conformance::load_dir(std::path::Path::new(&dir)).expect("cases");
    let reports = conformance::run_all(&runtime, &files);
    let ok = conformance::print_reports(&reports, &mut std::io::stdout()).unwrap();
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
