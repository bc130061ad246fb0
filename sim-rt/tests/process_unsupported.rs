//! `process`: a Command can be configured, but starting a process inside a
//! simulation fails with `Unsupported` and says why and what to do.

use std::io::ErrorKind;

use sim_rt::process::Command;

#[sim_rt::test]
async fn starting_a_process_fails_clearly() {
    let mut cmd = Command::new("echo");
    cmd.arg("hi")
        .env("A", "1")
        .current_dir("/")
        .kill_on_drop(true);
    assert_eq!(cmd.as_std().get_program(), "echo");
    assert_eq!(cmd.as_std().get_args().collect::<Vec<_>>(), ["hi"]);
    assert!(cmd.get_kill_on_drop());
    let err = cmd.spawn().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    let msg = err.to_string();
    assert!(
        msg.starts_with("tokio::process::Command::spawn: processes are not simulated"),
        "{msg}"
    );
    assert!(msg.contains("sim::host"), "{msg}");
    assert_eq!(
        cmd.status().await.unwrap_err().kind(),
        ErrorKind::Unsupported
    );
    assert_eq!(
        cmd.output().await.unwrap_err().kind(),
        ErrorKind::Unsupported
    );
    let std_cmd = Command::from(std::process::Command::new("true")).into_std();
    assert_eq!(std_cmd.get_program(), "true");
}
