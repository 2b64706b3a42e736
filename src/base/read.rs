//! Bounded file reads: every file stage2d reads is read at most up to its format's limit while it is read, never
//! by the size the file system reports (device files, pipes and files growing while read report sizes that mean
//! nothing), and a read can be cancelled between chunks.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The most bytes an image file may have (PNG, JPEG, WebP): far above any texture stage2d can hold, but bounded.
pub const MAX_IMAGE_FILE_BYTES: usize = 256 << 20;

/// The most bytes a font file may have.
pub const MAX_FONT_FILE_BYTES: usize = 64 << 20;

/// Bytes read at a time (a cancelled read stops within one).
const CHUNK: usize = 1 << 20;

/// Why a bounded read failed.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// More bytes than the limit.
    TooLarge(usize),
    /// Cancelled (the asset was unloaded while it was read).
    Cancelled,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge(max) => {
                write!(f, "longer than the {max} bytes this kind of file may have")
            }
            ReadError::Cancelled => write!(f, "unloaded while loading"),
        }
    }
}

impl ReadError {
    /// As an I/O error (for errors that carry one, such as an image's).
    pub(crate) fn into_io(self) -> std::io::Error {
        match self {
            ReadError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
        }
    }
}

/// The bytes of the file at `path`, at most `max` of them (one more is an error), read in chunks, checking
/// `cancel` between them.
pub(crate) fn read_capped(
    path: &Path,
    max: usize,
    cancel: Option<&AtomicBool>,
) -> Result<Vec<u8>, ReadError> {
    let mut file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; CHUNK.min(max + 1)];
    loop {
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(ReadError::Cancelled);
        }
        let n = match file.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io(e)),
        };
        if bytes.len() + n > max {
            return Err(ReadError::TooLarge(max));
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// The image in `bytes` read from `path`: in the format its extension names, else the one its first bytes show.
pub(crate) fn decode_image(path: &Path, bytes: &[u8]) -> image::ImageResult<image::DynamicImage> {
    match image::ImageFormat::from_path(path) {
        Ok(format) => image::load_from_memory_with_format(bytes, format),
        Err(_) => image::load_from_memory(bytes),
    }
}

/// The image file at `path`, read at most up to [`MAX_IMAGE_FILE_BYTES`] and decoded (holding one of the
/// [decode permits](decode_permit)); `cancel` as [`read_capped`]'s.
pub(crate) fn open_image(
    path: &Path,
    cancel: Option<&AtomicBool>,
) -> image::ImageResult<image::DynamicImage> {
    let bytes = read_capped(path, MAX_IMAGE_FILE_BYTES, cancel)
        .map_err(|e| image::ImageError::IoError(e.into_io()))?;
    let _permit = decode_permit();
    decode_image(path, &bytes)
}

/// Decodes running at once in the whole process: half the cores (one on two, at most four), so that decoding
/// never takes every core from a frame. Reading is not limited (a read that blocks holds no permit).
struct Permits {
    free: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
}

static PERMITS: std::sync::OnceLock<Permits> = std::sync::OnceLock::new();

/// A decode permit, given back when dropped.
pub(crate) struct Permit(&'static Permits);

impl Drop for Permit {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += 1;
        self.0.freed.notify_one();
    }
}

/// Waits for a decode permit (see [`Permits`]).
pub(crate) fn decode_permit() -> Permit {
    let p = PERMITS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Permits {
            free: std::sync::Mutex::new((cores / 2).clamp(1, 4)),
            freed: std::sync::Condvar::new(),
        }
    });
    let mut free = p.free.lock().unwrap_or_else(|e| e.into_inner());
    while *free == 0 {
        free = p.freed.wait(free).unwrap_or_else(|e| e.into_inner());
    }
    *free -= 1;
    Permit(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_the_limit_whatever_the_file_system_says() {
        let dir = std::env::temp_dir().join(format!("stage2d-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("ten.bin");
        std::fs::write(&f, [7u8; 10]).unwrap();
        assert_eq!(read_capped(&f, 10, None).unwrap(), vec![7u8; 10]);
        assert!(matches!(
            read_capped(&f, 9, None),
            Err(ReadError::TooLarge(9))
        ));
        let stop = AtomicBool::new(true);
        assert!(matches!(
            read_capped(&f, 10, Some(&stop)),
            Err(ReadError::Cancelled)
        ));
        // A device file that reports size 0 and never ends.
        #[cfg(unix)]
        {
            let t = std::time::Instant::now();
            assert!(matches!(
                read_capped(Path::new("/dev/zero"), 3 << 20, None),
                Err(ReadError::TooLarge(_))
            ));
            assert!(t.elapsed().as_secs() < 2);
        }
        assert!(matches!(
            read_capped(&dir.join("missing"), 10, None),
            Err(ReadError::Io(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
