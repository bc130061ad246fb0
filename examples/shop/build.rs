fn main() -> Result<(), Box<dyn std::error::Error>> {
    // SAFETY: a build script is single-threaded; nothing reads the
    // environment concurrently.
    unsafe {
        std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?);
    }
    tonic_prost_build::compile_protos("proto/ledger.proto")?;
    println!("cargo:rerun-if-changed=proto/ledger.proto");
    Ok(())
}
