// SPDX-License-Identifier: GPL-2.0

//! Rust PMU sample.
//!
//! A software PMU, `rust_pmu`, written with the kernel crate's perf API. Its events count how many
//! times the perf core schedules them in (calls the PMU's `add`): a task's event when it is
//! enabled and each time the task runs again after a context switch, a CPU's event when it is
//! enabled, and any event again when the perf core reschedules its context (as when another
//! event is installed there). The count grows by the event's `weight` (`config:0-15`, 0
//! counting as 1) each time.
//!
//! ```sh
//! perf stat -e rust_pmu/weight=2/ -- sleep 1
//! ```
//!
//! The events only count: sampling events are refused (`EOPNOTSUPP`), as are unknown `config`
//! bits (`EINVAL`). Each event holds the module, which cannot be removed while one is open.

use kernel::c_str;
use kernel::perf::{self, Event, EventInit, FormatAttribute, Pmu, Prepared, Registration};
use kernel::prelude::*;

module! {
    type: RustPmuModule,
    name: "rust_pmu",
    author: "Rust for Linux Contributors",
    description: "Rust PMU sample",
    license: "GPL",
}

/// The bits of `config` that hold the weight.
const WEIGHT: u64 = 0xffff;

struct SchedIn;

#[vtable]
impl Pmu for SchedIn {
    const NAME: &'static CStr = c_str!("rust_pmu");
    const FORMAT: &'static [FormatAttribute] = &[FormatAttribute::new(
        c_str!("weight"),
        c_str!("config:0-15"),
    )];
    const NO_INTERRUPT: bool = true;

    fn event_init(event: EventInit<'_, Self>) -> Result<Prepared<'_, Self>> {
        if event.attr_type() != event.pmu_type() {
            return Err(ENOENT);
        }
        if event.config() & !WEIGHT != 0 {
            return Err(EINVAL);
        }
        Ok(event.accept())
    }

    fn add(event: &Event, flags: u32) -> Result {
        if flags & perf::flags::START != 0 {
            event.add_count((event.config() & WEIGHT).max(1));
        }
        Ok(())
    }

    fn del(_event: &Event, _flags: u32) {}
}

struct RustPmuModule {
    _pmu: Registration<SchedIn>,
}

impl kernel::Module for RustPmuModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        let pmu = Registration::new(module)?;
        pr_info!("PMU rust_pmu registered with type {}\n", pmu.pmu_type());
        Ok(RustPmuModule { _pmu: pmu })
    }
}
