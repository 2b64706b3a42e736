//! Whether the GPU device is lost: set by the device's lost callback or by a call that met the loss, read before
//! every call that needs the device (see `src/renderer/recover.rs` for recovery).

use crate::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Whether a device is lost, and why, as its lost callback or a failed call found out.
#[derive(Debug, Default)]
pub(crate) struct DeviceHealth {
    lost: AtomicBool,
    why: Mutex<String>,
}

impl DeviceHealth {
    /// Health of `device`; `own` devices (opened by stage2d) get a lost callback that sets it. A caller's device
    /// keeps its own callback: its loss is found out from the calls that meet it.
    pub fn watch(device: &wgpu::Device, own: bool) -> Arc<DeviceHealth> {
        let health = Arc::new(DeviceHealth::default());
        if own {
            let h = health.clone();
            device.set_device_lost_callback(move |reason, message| {
                log::error!("the GPU device was lost ({reason:?}): {message}");
                h.set_lost(format!("{reason:?}: {message}"));
            });
        }
        health
    }

    /// Notes the loss.
    pub fn set_lost(&self, why: String) {
        *self.why.lock().unwrap_or_else(|e| e.into_inner()) = why;
        self.lost.store(true, Ordering::Release);
    }

    /// Whether the device is lost.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// [`Error::DeviceLost`] if the device is lost.
    pub fn check(&self) -> Result<()> {
        match self.is_lost() {
            true => Err(Error::DeviceLost(
                self.why.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            )),
            false => Ok(()),
        }
    }
}

/// Whether a wgpu error message says the device is gone (wgpu's `DeviceError::Lost` and the errors of objects
/// whose parent device is lost or destroyed).
pub(crate) fn says_lost(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("device is lost")
        || m.contains("device lost")
        || m.contains("parent device is lost")
        || m.contains("device has been destroyed")
        || m.contains("device is destroyed")
        || m.contains("is invalid because the device")
}
