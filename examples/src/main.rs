//! `cargo run --release -p examples -- <system>`: explore one example with
//! its planted bug on, print the failure and the line that reproduces it,
//! then replay it.

extern crate sim_rt as tokio;

mod sim;

fn main() {
    let names: Vec<&str> = sim::cases().iter().map(|c| c.name).collect();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name] = args.as_slice() else {
        eprintln!(
            "usage: cargo run --release -p examples -- <{}>",
            names.join("|")
        );
        std::process::exit(2);
    };
    let Some(case) = sim::case(name) else {
        eprintln!(
            "no example named {name:?}; the examples are: {}",
            names.join(", ")
        );
        std::process::exit(2);
    };
    let replaying = std::env::var_os("SIM_REPLAY").is_some();
    if !replaying {
        println!("exploring {}: {} (planted bug on)", case.name, case.bug);
    }
    let test = case.test;
    let report = (case.explorer)().run(move || test(true));
    println!("{report}");
    let Some(found) = &report.failure else {
        println!("the planted bug was not found within the budget");
        std::process::exit(1);
    };
    if replaying {
        // Asked to reproduce: the failure above is it.
        std::process::exit(1);
    }
    println!(
        "found the planted bug after {} executions ({:.2?}); replaying it...",
        report.executions, report.elapsed
    );
    let again = (case.explorer)()
        .progress(false)
        .replay(found.token.to_string())
        .run(move || test(true));
    let replayed = again.failure.expect("the replay fails again");
    assert_eq!(
        replayed.trace, found.trace,
        "the replay is the same execution"
    );
    println!(
        "replayed: the same {} choice points, the same failure: {}",
        replayed.trace.len(),
        replayed
            .failure
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
    );
}
