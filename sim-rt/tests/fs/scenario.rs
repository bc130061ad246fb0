// Included by tests/fs_api.rs twice: once with `tokio` = real tokio on a
// real temporary directory, once with `tokio` = sim_rt on the simulated
// disk. `scenario` runs the same tokio-shaped calls and describes every
// outcome (values and error kinds) without naming the root, so the two
// runs can be compared line by line.

#[allow(unused_imports)]
use std::io;
#[allow(unused_imports)]
use std::path::Path;

/// `Ok(value)` or the error's kind, as text.
fn outcome<T: std::fmt::Debug>(r: io::Result<T>) -> String {
    match r {
        Ok(v) => format!("Ok({v:?})"),
        Err(e) => format!("Err({:?})", e.kind()),
    }
}

pub async fn scenario(root: &Path) -> Vec<String> {
    use tokio::fs;
    use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
    let p = |name: &str| root.join(name);
    let mut out = Vec::new();
    macro_rules! note {
        ($label:expr, $e:expr) => {
            out.push(format!("{}: {}", $label, outcome($e)))
        };
    }

    note!("create_dir", fs::create_dir(p("d")).await);
    note!("create_dir again", fs::create_dir(p("d")).await);
    note!("create_dir no parent", fs::create_dir(p("x/y")).await);
    note!("create_dir_all", fs::create_dir_all(p("a/b/c")).await);
    note!("create_dir_all again", fs::create_dir_all(p("a/b/c")).await);
    note!("write", fs::write(p("d/f"), b"hello").await);
    note!("write no parent", fs::write(p("nope/f"), b"x").await);
    note!("write onto dir", fs::write(p("d"), b"x").await);
    note!("read", fs::read(p("d/f")).await);
    note!("read missing", fs::read(p("d/missing")).await);
    note!("read dir", fs::read(p("d")).await);
    note!("read through file", fs::read(p("d/f/g")).await);
    note!("read_to_string", fs::read_to_string(p("d/f")).await);
    note!("write bad utf8", fs::write(p("d/bin"), [0xffu8, 0xfe]).await);
    note!("read_to_string bad utf8", fs::read_to_string(p("d/bin")).await);
    note!("try_exists", fs::try_exists(p("d/f")).await);
    note!("try_exists missing", fs::try_exists(p("d/missing")).await);
    note!("metadata len", fs::metadata(p("d/f")).await.map(|m| (m.len(), m.is_file(), m.is_dir())));
    note!("metadata dir", fs::metadata(p("d")).await.map(|m| (m.is_file(), m.is_dir(), m.file_type().is_dir())));
    note!("symlink_metadata", fs::symlink_metadata(p("d/f")).await.map(|m| m.file_type().is_file()));
    note!("metadata missing", fs::metadata(p("d/missing")).await.map(|m| m.len()));
    note!("copy", fs::copy(p("d/f"), p("d/g")).await);
    note!("copy missing", fs::copy(p("d/missing"), p("d/h")).await);
    note!("read copy", fs::read(p("d/g")).await);
    note!("hard_link", fs::hard_link(p("d/f"), p("d/link")).await);
    note!("hard_link exists", fs::hard_link(p("d/f"), p("d/g")).await);
    note!("hard_link dir", fs::hard_link(p("d"), p("dlink")).await);
    note!("rename", fs::rename(p("d/g"), p("d/g2")).await);
    note!("rename missing", fs::rename(p("d/g"), p("d/g3")).await);
    note!("rename over file", fs::rename(p("d/g2"), p("d/link")).await);
    note!("read renamed", fs::read(p("d/link")).await);
    note!("rename file over dir", fs::rename(p("d/link"), p("a")).await);
    note!("remove_file", fs::remove_file(p("d/link")).await);
    note!("remove_file missing", fs::remove_file(p("d/link")).await);
    note!("remove_file dir", fs::remove_file(p("a")).await);
    note!("remove_dir non-empty", fs::remove_dir(p("a")).await);
    note!("remove_dir file", fs::remove_dir(p("d/f")).await);
    note!("remove_dir empty", fs::remove_dir(p("a/b/c")).await);
    note!("remove_dir_all", fs::remove_dir_all(p("a")).await);
    note!("remove_dir_all missing", fs::remove_dir_all(p("a")).await);
    note!("canonicalize", fs::canonicalize(p("d/../d/f")).await.map(|c| c == p("d/f")));
    note!("canonicalize missing", fs::canonicalize(p("d/missing")).await);

    // read_dir
    let mut names = Vec::new();
    let mut kinds = Vec::new();
    let mut entries = fs::read_dir(p("d")).await.unwrap();
    while let Some(e) = entries.next_entry().await.unwrap() {
        names.push(e.file_name().into_string().unwrap());
        kinds.push(e.file_type().await.unwrap().is_file());
        assert_eq!(e.path(), p("d").join(e.file_name()));
        assert_eq!(e.metadata().await.unwrap().is_file(), *kinds.last().unwrap());
    }
    names.sort();
    out.push(format!("read_dir: {names:?} all files: {}", kinds.iter().all(|k| *k)));
    note!("read_dir missing", fs::read_dir(p("missing")).await.map(|_| ()));
    note!("read_dir file", fs::read_dir(p("d/f")).await.map(|_| ()));

    // OpenOptions
    let oo = || fs::OpenOptions::new();
    note!("open no access", oo().open(p("d/f")).await.map(|_| ()));
    note!("open read+create", oo().read(true).create(true).open(p("d/n")).await.map(|_| ()));
    note!("open missing", fs::File::open(p("d/missing")).await.map(|_| ()));
    note!("create_new exists", fs::File::create_new(p("d/f")).await.map(|_| ()));
    note!("create_new", fs::File::create_new(p("d/new")).await.map(|_| ()));
    note!("create dir", fs::File::create(p("d")).await.map(|_| ()));
    note!("open dir", fs::File::open(p("d")).await.map(|_| ()));
    note!("sync dir", async { fs::File::open(p("d")).await?.sync_all().await }.await);

    // File: write, seek, read, append, set_len, metadata, try_clone
    let r: io::Result<Vec<String>> = async {
        let mut v = Vec::new();
        let mut f = oo().read(true).write(true).create(true).truncate(true).open(p("d/file")).await?;
        f.write_all(b"hello world").await?;
        v.push(format!("seek {}", f.seek(io::SeekFrom::Start(6)).await?));
        let mut buf = [0u8; 5];
        f.read_exact(&mut buf).await?;
        v.push(format!("read {:?}", std::str::from_utf8(&buf).unwrap()));
        v.push(format!("pos {}", f.stream_position().await?));
        v.push(format!("eof read {}", f.read(&mut buf).await?));
        v.push(format!("seek before start {}", outcome(f.seek(io::SeekFrom::Current(-100)).await)));
        f.seek(io::SeekFrom::Start(0)).await?;
        let mut two = [0u8; 2];
        f.read_exact(&mut two).await?;
        f.write_all(b"XY").await?; // lands after the two bytes read
        f.flush().await?;
        v.push(format!("after mid write {:?}", fs::read_to_string(p("d/file")).await?));
        f.set_len(3).await?;
        v.push(format!("set_len {}", f.metadata().await?.len()));
        f.sync_all().await?;
        f.sync_data().await?;
        let g = f.try_clone().await?;
        f.seek(io::SeekFrom::Start(1)).await?;
        let mut g = g;
        v.push(format!("clone shares cursor {}", g.stream_position().await?));
        let mut rest = String::new();
        g.read_to_string(&mut rest).await?;
        v.push(format!("clone read {rest:?}"));
        drop((f, g));
        let mut a = oo().append(true).open(p("d/file")).await?;
        a.write_all(b"++").await?;
        a.flush().await?;
        v.push(format!("append {:?}", fs::read_to_string(p("d/file")).await?));
        let mut ro = fs::File::open(p("d/file")).await?;
        ro.write_all(b"no").await?; // buffered: the error comes later
        v.push(format!("write read-only flush {}", outcome(ro.flush().await)));
        v.push(format!("set_len read-only {}", outcome(ro.set_len(0).await)));
        let mut wo = oo().write(true).open(p("d/file")).await?;
        v.push(format!("read write-only {}", outcome(wo.read(&mut buf).await)));
        let mut dir = fs::File::open(p("d")).await?;
        v.push(format!("read dir handle {}", outcome(dir.read(&mut buf).await)));
        v.push(format!("dir handle metadata {}", dir.metadata().await?.is_dir()));
        Ok(v)
    }
    .await;
    match r {
        Ok(v) => out.extend(v),
        Err(e) => out.push(format!("file block failed: {:?}", e.kind())),
    }

    // A removed file lives while open.
    let r: io::Result<String> = async {
        let mut f = oo().read(true).write(true).create(true).open(p("d/tmp")).await?;
        f.write_all(b"ghost").await?;
        fs::remove_file(p("d/tmp")).await?;
        f.seek(io::SeekFrom::Start(0)).await?;
        let mut s = String::new();
        f.read_to_string(&mut s).await?;
        Ok(format!("{s} exists={}", fs::try_exists(p("d/tmp")).await?))
    }
    .await;
    note!("removed while open", r);
    out
}
