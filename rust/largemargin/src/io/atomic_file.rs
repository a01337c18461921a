//! Writing a file so that it ends up either wholly written or unchanged. The contents go to a new
//! file in the target's directory, which is flushed, synced and then renamed over the target: a
//! full disk, a file-size limit or a crash mid-write leave the previous file as it was. A device or
//! a pipe (`/dev/stdout`, `/dev/full`, a FIFO) cannot be replaced by a rename, so it is written in
//! place; there too every write and the final flush are checked and their errors returned.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};

/// Writes `path` through `write`, atomically where the path is (or will be) a regular file.
/// Errors name the path.
pub fn write_atomically(path: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let named = |e: Error| e.in_file(path);
    let target = resolve_symlink(path).map_err(|e| named(e.into()))?;
    match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => return Err(named(Error::Io("is a directory".into()))),
        Ok(meta) if !meta.is_file() => return write_in_place(&target, write).map_err(named),
        _ => {}
    }
    let (tmp_path, file) = create_temporary(&target).map_err(|e| named(e.into()))?;
    let outcome = fill_and_replace(file, &tmp_path, &target, write);
    if outcome.is_err() {
        let _ = fs::remove_file(&tmp_path);
    }
    outcome.map_err(named)
}

/// The file a symbolic link points to (written through, not replaced by a regular file), else
/// the path itself.
fn resolve_symlink(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => match fs::canonicalize(path) {
            Ok(real) => Ok(real),
            // a dangling link: create what it names
            Err(_) => {
                let to = fs::read_link(path)?;
                Ok(if to.is_absolute() { to } else { path.parent().unwrap_or(Path::new(".")).join(to) })
            }
        },
        _ => Ok(path.to_path_buf()),
    }
}

fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A new, exclusively created file beside `target`.
fn create_temporary(target: &Path) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = directory_of(target);
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1_000_000 => continue,
            Err(e) => return Err(e),
        }
    }
}

fn fill_and_replace(
    file: File, tmp_path: &Path, target: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let mut w = BufWriter::with_capacity(1 << 16, file);
    write(&mut w)?;
    let file = w.into_inner().map_err(|e| Error::from(e.into_error()))?;
    if let Ok(meta) = fs::metadata(target) {
        // the replacement keeps the permissions of the file it replaces
        fs::set_permissions(tmp_path, meta.permissions())?;
    }
    file.sync_all()?;
    drop(file);
    fs::rename(tmp_path, target)?;
    sync_directory(directory_of(target))
}

/// Makes the rename itself durable. Filesystems that cannot sync a directory say so with
/// `InvalidInput`/`Unsupported`; there is nothing more to do on those.
fn sync_directory(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        match File::open(dir).and_then(|d| d.sync_all()) {
            Err(e) if !matches!(e.kind(), io::ErrorKind::InvalidInput | io::ErrorKind::Unsupported) => {
                return Err(e.into())
            }
            _ => {}
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

fn write_in_place(target: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let file = OpenOptions::new().write(true).truncate(true).open(target)?;
    let mut w = BufWriter::with_capacity(1 << 16, file);
    write(&mut w)?;
    w.into_inner().map_err(|e| Error::from(e.into_error()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lm-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn replaces_whole_or_not_at_all() {
        let dir = scratch("replace");
        let path = dir.join("model.txt");
        write_atomically(&path, |w| Ok(w.write_all(b"first\n")?)).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "first\n");
        let e = write_atomically(&path, |w| {
            w.write_all(b"half of the second")?;
            Err(Error::Io("disk full".into()))
        })
        .unwrap_err();
        assert!(e.to_string().contains("model.txt") && e.to_string().contains("disk full"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "first\n");
        assert_eq!(leftovers(&dir), vec!["model.txt".to_string()]);
        write_atomically(&path, |w| Ok(w.write_all(b"second\n")?)).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second\n");
    }

    #[test]
    fn writes_through_symlinks_and_refuses_directories() {
        let dir = scratch("links");
        let real = dir.join("real.txt");
        fs::write(&real, "old").unwrap();
        #[cfg(unix)]
        {
            let link = dir.join("link.txt");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            write_atomically(&link, |w| Ok(w.write_all(b"new")?)).unwrap();
            assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        }
        let e = write_atomically(&dir, |w| Ok(w.write_all(b"x")?)).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        let e = write_atomically(&dir.join("missing").join("m.txt"), |w| Ok(w.write_all(b"x")?)).unwrap_err();
        assert!(matches!(e.cause(), Error::Io(_)) && e.to_string().contains("m.txt"), "{e}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_device_is_an_error() {
        let e = write_atomically(Path::new("/dev/full"), |w| Ok(w.write_all(&[b'x'; 100])?)).unwrap_err();
        assert!(e.to_string().contains("/dev/full"), "{e}");
    }
}
