//! The pipeline warm-start file (`stage2d::internals::persist::decode`, what `Renderer` reads from its cache
//! directory before the first frame), for the adapter key and driver the seeds were written for. Each input is
//! decoded as it is, then again with its checksum made right, so that mutations reach the entries and the data
//! instead of stopping at the checksum. A file that decodes must name only states that exist and survive
//! encoding again unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stage2d::internals::{persist, GlobalState};

const KEY: &str = "fuzz-adapter";
const DRIVER: &str = "fuzz-driver";

/// FNV-1a 64, the file's checksum.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn check(bytes: &[u8]) {
    for (key, driver) in [(KEY, DRIVER), ("", "")] {
        let Ok(file) = persist::decode(bytes, key, driver) else {
            continue;
        };
        for (tier, _) in &file.entries {
            let state =
                GlobalState::from_key(tier.global).expect("decode keeps only states that exist");
            assert_eq!(state.key(), tier.global);
        }
        let again = persist::encode(&file, key, driver);
        assert_eq!(persist::decode(&again, key, driver).as_ref(), Ok(&file));
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= 16 {
        let mut fixed = data.to_vec();
        let body = fixed.len() - 8;
        let sum = fnv1a(&fixed[..body]);
        fixed[body..].copy_from_slice(&sum.to_le_bytes());
        check(&fixed);
    }
});
