// Included by tests/parity.rs twice, like code.rs: `tokio::fs` items pinned
// to tokio's signatures, and a tokio-shaped write-ahead log and atomic
// replace that run on both runtimes (on a real temporary directory with
// tokio, on the simulated disk with sim_rt).

#[allow(dead_code, clippy::type_complexity)]
fn fs_signatures() {
    use std::path::PathBuf;
    use std::task::{Context, Poll};
    use tokio::fs::{self, DirEntry, File, OpenOptions, ReadDir};
    fn future_of<T, F: std::future::Future<Output = T>>(_: F) {}
    let p = "/x";

    // free functions, with tokio's argument types
    future_of::<io::Result<Vec<u8>>, _>(fs::read(p));
    future_of::<io::Result<Vec<u8>>, _>(fs::read(PathBuf::from(p)));
    future_of::<io::Result<String>, _>(fs::read_to_string(p));
    future_of::<io::Result<()>, _>(fs::write(p, b"x"));
    future_of::<io::Result<()>, _>(fs::write(p, vec![1u8]));
    future_of::<io::Result<()>, _>(fs::write(p, "text"));
    future_of::<Result<u64, std::io::Error>, _>(fs::copy(p, "/y"));
    future_of::<io::Result<()>, _>(fs::create_dir(p));
    future_of::<io::Result<()>, _>(fs::create_dir_all(p));
    future_of::<io::Result<()>, _>(fs::remove_file(p));
    future_of::<io::Result<()>, _>(fs::remove_dir(p));
    future_of::<io::Result<()>, _>(fs::remove_dir_all(p));
    future_of::<io::Result<()>, _>(fs::rename(p, "/y"));
    future_of::<io::Result<()>, _>(fs::hard_link(p, "/y"));
    future_of::<io::Result<bool>, _>(fs::try_exists(p));
    future_of::<io::Result<PathBuf>, _>(fs::canonicalize(p));
    future_of::<io::Result<ReadDir>, _>(fs::read_dir(p));
    future_of::<io::Result<u64>, _>(async { Ok(fs::metadata(p).await?.len()) });
    future_of::<io::Result<bool>, _>(async {
        let m = fs::symlink_metadata(p).await?;
        Ok(m.is_file() || m.is_dir() || m.is_symlink() || m.file_type().is_dir())
    });
    #[cfg(unix)]
    future_of::<io::Result<bool>, _>(async {
        #[allow(unused_imports)] // sim_rt's are inherent: std's trait is sealed
        use std::os::unix::fs::FileTypeExt;
        let t = fs::metadata(p).await?.file_type();
        Ok(t.is_socket() || t.is_fifo() || t.is_block_device() || t.is_char_device())
    });

    // ReadDir and DirEntry
    fn read_dir(r: &mut ReadDir, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        future_of::<io::Result<Option<DirEntry>>, _>(r.next_entry());
        r.poll_next_entry(cx)
    }
    let _ = read_dir;
    fn dir_entry(e: &DirEntry) {
        let _: PathBuf = e.path();
        let _: std::ffi::OsString = e.file_name();
        let _: u64 = e.ino();
        future_of::<io::Result<bool>, _>(async { Ok(e.metadata().await?.is_file()) });
        future_of::<io::Result<bool>, _>(async { Ok(e.file_type().await?.is_file()) });
    }
    let _ = dir_entry;

    // OpenOptions
    let mut o: OpenOptions = OpenOptions::new();
    let _: &mut OpenOptions = o
        .read(true)
        .write(true)
        .append(false)
        .truncate(false)
        .create(true)
        .create_new(false);
    #[cfg(unix)]
    let _: &mut OpenOptions = o.mode(0o600).custom_flags(0);
    future_of::<io::Result<File>, _>(o.open(p));
    let _: OpenOptions = File::options();

    // File
    future_of::<io::Result<File>, _>(File::open(p));
    future_of::<io::Result<File>, _>(File::create(p));
    future_of::<io::Result<File>, _>(File::create_new(p));
    fn file(f: &mut File) {
        future_of::<io::Result<()>, _>(f.sync_all());
        future_of::<io::Result<()>, _>(f.sync_data());
        future_of::<io::Result<()>, _>(f.set_len(0));
        future_of::<io::Result<u64>, _>(async { Ok(f.metadata().await?.len()) });
        future_of::<io::Result<File>, _>(f.try_clone());
        let _: usize = f.max_buf_size();
        f.set_max_buf_size(1024);
    }
    let _ = file;
    fn traits<T>()
    where
        T: Send + Sync + Unpin + std::fmt::Debug,
        T: tokio::io::AsyncRead + tokio::io::AsyncWrite + tokio::io::AsyncSeek,
    {
    }
    traits::<File>();
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ReadDir>();
    send_sync::<DirEntry>();
    send_sync::<OpenOptions>();
}

/// The items of `tokio::fs` that touch what the simulated disk lacks
/// (symlinks, permissions, timestamps, OS files), pinned to tokio's
/// signatures, trait impls and auto traits.
#[allow(dead_code, clippy::type_complexity)]
fn fs_os_signatures() {
    use std::fs::Permissions;
    use std::path::PathBuf;
    use std::time::SystemTime;
    use tokio::fs::{self, DirBuilder, File, FileTimes};
    fn send_future_of<T, F: std::future::Future<Output = T> + Send>(_: F) {}
    let p = "/x";

    // free functions
    send_future_of::<io::Result<PathBuf>, _>(fs::read_link(p));
    send_future_of::<io::Result<PathBuf>, _>(fs::read_link(PathBuf::from(p)));
    fn set_permissions(perm: Permissions) {
        send_future_of::<io::Result<()>, _>(fs::set_permissions("/x", perm));
    }
    #[cfg(unix)]
    send_future_of::<io::Result<()>, _>(fs::symlink(p, PathBuf::from("/y")));

    // DirBuilder
    let _: fn() -> DirBuilder = DirBuilder::new;
    let _: fn(&mut DirBuilder, bool) -> &mut DirBuilder = DirBuilder::recursive;
    #[cfg(unix)]
    let _: fn(&mut DirBuilder, u32) -> &mut DirBuilder = DirBuilder::mode;
    fn dir_builder(b: &DirBuilder) {
        send_future_of::<io::Result<()>, _>(b.create("/x"));
        send_future_of::<io::Result<()>, _>(b.create(PathBuf::from("/x")));
    }
    fn builder_traits<T: Default + std::fmt::Debug + Send + Sync + Unpin>() {}
    builder_traits::<DirBuilder>();

    // FileTimes
    let _: fn() -> FileTimes = FileTimes::new;
    let _: fn(FileTimes, SystemTime) -> FileTimes = FileTimes::set_accessed;
    let _: fn(FileTimes, SystemTime) -> FileTimes = FileTimes::set_modified;
    #[cfg(any(windows, target_vendor = "apple"))]
    let _: fn(FileTimes, SystemTime) -> FileTimes = FileTimes::set_created;
    fn times_traits<T: Default + Clone + std::fmt::Debug + Send + Sync + Unpin>() {}
    times_traits::<FileTimes>();

    // File
    let _: fn(std::fs::File) -> File = File::from_std;
    let _: fn(File) -> Result<std::fs::File, File> = File::try_into_std;
    fn file(f: &File, perm: Permissions, times: FileTimes) {
        send_future_of::<io::Result<()>, _>(f.set_permissions(perm));
        send_future_of::<io::Result<()>, _>(f.set_times(times));
        send_future_of::<io::Result<()>, _>(f.set_modified(SystemTime::UNIX_EPOCH));
    }
    fn into_std(f: File) {
        send_future_of::<std::fs::File, _>(f.into_std());
    }
    fn from_std_file<T: From<std::fs::File>>() {}
    from_std_file::<File>();
    #[cfg(unix)]
    {
        fn fd_traits<T>()
        where
            T: From<std::os::fd::OwnedFd>,
            T: std::os::fd::AsFd + std::os::fd::AsRawFd + std::os::fd::FromRawFd,
        {
        }
        fd_traits::<File>();
    }
}

/// An append-only log and an atomic replace, written the way tokio code
/// writes them: the same function runs on both runtimes.
async fn fs_service(root: &std::path::Path) -> io::Result<(Vec<u8>, String, Vec<String>)> {
    use tokio::fs::{self, File, OpenOptions};
    use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
    fs::create_dir_all(root.join("db")).await?;
    let log_path = root.join("db/log");
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .await?;
    for record in [&b"one;"[..], b"two;"] {
        log.write_all(record).await?;
        log.sync_data().await?;
    }
    File::open(root.join("db")).await?.sync_all().await?;
    let mut reader = File::open(&log_path).await?;
    reader.seek(io::SeekFrom::Start(0)).await?;
    let mut logged = Vec::new();
    reader.read_to_end(&mut logged).await?;

    let tmp = root.join("db/config.tmp");
    let mut f = File::create(&tmp).await?;
    f.write_all(b"version = 2").await?;
    f.sync_all().await?;
    fs::rename(&tmp, root.join("db/config")).await?;
    File::open(root.join("db")).await?.sync_all().await?;
    let config = fs::read_to_string(root.join("db/config")).await?;

    let mut names = Vec::new();
    let mut dir = fs::read_dir(root.join("db")).await?;
    while let Some(entry) = dir.next_entry().await? {
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok((logged, config, names))
}

#[tokio::test]
async fn fs_service_runs() {
    let root = std::env::temp_dir().join(format!(
        "sim-rt-parity-fs-{}-{}",
        std::process::id(),
        module_path!().replace("::", "-")
    ));
    let _ = tokio::fs::remove_dir_all(&root).await;
    let (log, config, names) = fs_service(&root).await.unwrap();
    tokio::fs::remove_dir_all(&root).await.unwrap();
    assert_eq!(log, b"one;two;");
    assert_eq!(config, "version = 2");
    assert_eq!(names, ["config", "log"]);
}

#[tokio::test]
async fn fs_error_kinds_match() {
    let err = tokio::fs::read("/definitely/not/here").await.unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
    let err = tokio::fs::OpenOptions::new()
        .open("/definitely/not/here")
        .await
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
}
