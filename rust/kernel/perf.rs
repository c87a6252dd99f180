// SPDX-License-Identifier: GPL-2.0

//! Performance events.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)
//!
//! A PMU (a source of perf events) written in Rust implements [`Pmu`] and is registered with the
//! perf core by a [`Registration`]. Its callbacks borrow the events they act on as [`Event`]s.
//!
//! # Examples
//!
//! A PMU whose events count nothing, with one format attribute, as a module registers it:
//!
//! ```
//! use kernel::c_str;
//! use kernel::perf::{Event, EventInit, FormatAttribute, Pmu, Prepared, Registration};
//! use kernel::prelude::*;
//!
//! struct Idle;
//!
//! #[vtable]
//! impl Pmu for Idle {
//!     const NAME: &'static CStr = c_str!("rust_doctest_idle");
//!     const FORMAT: &'static [FormatAttribute] =
//!         &[FormatAttribute::new(c_str!("level"), c_str!("config:0-3"))];
//!
//!     fn event_init(event: EventInit<'_, Self>) -> Result<Prepared<'_, Self>> {
//!         if event.attr_type() != event.pmu_type() {
//!             return Err(ENOENT);
//!         }
//!         Ok(event.accept())
//!     }
//!
//!     fn add(_event: &Event, _flags: u32) -> Result {
//!         Ok(())
//!     }
//!
//!     fn del(_event: &Event, _flags: u32) {}
//! }
//!
//! // A module registers its PMU in its init, with its `THIS_MODULE`, and keeps the registration
//! // until its exit, when no event of the PMU is left. The PMU's type number, which user space
//! // passes as `perf_event_attr::type`, is `Registration::pmu_type()`. (The example registers
//! // nothing: a doctest runs in built-in code, whose PMUs stay registered for the life of the
//! // kernel.)
//! struct IdleModule {
//!     _pmu: Registration<Idle>,
//! }
//!
//! impl kernel::Module for IdleModule {
//!     fn init(module: &'static ThisModule) -> Result<Self> {
//!         Ok(Self {
//!             _pmu: Registration::new(module)?,
//!         })
//!     }
//! }
//! ```

mod event;
mod event_init;
mod pmu;
mod probe;
mod reaper;
mod registration;

pub use event::{Event, TaskContext};
pub use event_init::{EventInit, Prepared};
pub use pmu::{FormatAttribute, Pmu};
pub use reaper::{Reap, Reaper};
pub use registration::Registration;

/// The flags of the `add`, `del`, `start` and `stop` callbacks of a [`Pmu`] (the C `PERF_EF_*`).
pub mod flags {
    use crate::bindings;

    /// `add`: start the event at once.
    pub const START: u32 = bindings::PERF_EF_START;

    /// `start`: reload the event's period.
    pub const RELOAD: u32 = bindings::PERF_EF_RELOAD;

    /// `del` and `stop`: update the event's count.
    pub const UPDATE: u32 = bindings::PERF_EF_UPDATE;
}
