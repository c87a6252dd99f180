// SPDX-License-Identifier: GPL-2.0

//! The events of a PMU as its callbacks see them: [`Event`], a borrowed `struct perf_event`
//! whose attributes it reads and whose count it adds to, and the [`TaskContext`] in which the
//! perf core schedules them. What it does is allowed in any context, an NMI included.

use crate::{bindings, ffi::c_int, types::Opaque};

/// The context in which the perf core schedules the events of a PMU.
///
/// Corresponds to the C `enum perf_event_task_context`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskContext {
    /// The PMU has no per-task events: they can only be opened per CPU.
    Invalid,
    /// Events are scheduled with the hardware PMUs'.
    Hardware,
    /// Events are scheduled with the software PMUs' (they never fail to be added).
    Software,
}

impl TaskContext {
    pub(super) const fn as_raw(self) -> c_int {
        match self {
            Self::Invalid => bindings::perf_event_task_context_perf_invalid_context,
            Self::Hardware => bindings::perf_event_task_context_perf_hw_context,
            Self::Software => bindings::perf_event_task_context_perf_sw_context,
        }
    }
}

/// A perf event, borrowed in a callback of its PMU.
///
/// Wraps the kernel's [`struct perf_event`].
///
/// # Invariants
///
/// `self.0` is a valid `struct perf_event` that the perf core keeps alive and does not free
/// while the reference is in use.
///
/// [`struct perf_event`]: srctree/include/linux/perf_event.h
#[repr(transparent)]
pub struct Event(Opaque<bindings::perf_event>);

impl Event {
    /// Creates a reference to an [`Event`] from a valid pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must point at a valid `struct perf_event` that stays alive, and whose `pmu` and the
    /// attributes read here (type, config, config1, config2, sample type) do not change, for the
    /// lifetime `'a`; this holds in the callbacks of its PMU.
    pub(crate) unsafe fn from_raw<'a>(ptr: *mut bindings::perf_event) -> &'a Self {
        // CAST: `Self` is a `repr(transparent)` wrapper around `bindings::perf_event`.
        let ptr = ptr.cast::<Self>();
        // SAFETY: By the function requirements the pointer is valid for `'a`.
        unsafe { &*ptr }
    }

    /// Returns a raw pointer to the C `struct perf_event`.
    pub fn as_raw(&self) -> *mut bindings::perf_event {
        self.0.get()
    }

    /// Returns the type the event was opened with (`perf_event_attr::type`).
    pub fn attr_type(&self) -> u32 {
        // SAFETY: By the type invariants the event is valid; `type` does not change. Each
        // accessor reads one field: the perf core writes others (the sample period) while the
        // event lives.
        unsafe { (*self.as_raw()).attr.type_ }
    }

    /// Returns the type number of the PMU the event is being given to.
    ///
    /// In [`Pmu::event_init`](super::Pmu::event_init), an event whose [`Event::attr_type`]
    /// differs is not meant for the PMU, which then returns `ENOENT`.
    pub fn pmu_type(&self) -> u32 {
        // SAFETY: By the type invariants the event is valid; the perf core sets `pmu` before it
        // calls any callback of that PMU.
        let type_ = unsafe { (*(*self.as_raw()).pmu).type_ };
        // A registered PMU's type is not negative.
        type_ as u32
    }

    /// Returns `perf_event_attr::config`.
    pub fn config(&self) -> u64 {
        // SAFETY: By the type invariants the event is valid; `config` does not change.
        unsafe { (*self.as_raw()).attr.config }
    }

    /// Returns `perf_event_attr::config1` (for probe PMUs, a user pointer to a name).
    pub fn config1(&self) -> u64 {
        // SAFETY: By the type invariants the event is valid; `config1` does not change, and every
        // member of its union is a `u64`.
        unsafe { (*self.as_raw()).attr.__bindgen_anon_3.config1 }
    }

    /// Returns `perf_event_attr::config2` (for probe PMUs, an address or an offset).
    pub fn config2(&self) -> u64 {
        // SAFETY: By the type invariants the event is valid; `config2` does not change, and every
        // member of its union is a `u64`.
        unsafe { (*self.as_raw()).attr.__bindgen_anon_4.config2 }
    }

    /// Adds `delta` to the event's count, which `read()` of the event returns.
    ///
    /// A PMU whose events count what happens while they are scheduled calls it from the
    /// callbacks of an event on the CPU where the event is active (`add`, `del`, `start`,
    /// `stop`, `read`): the count is a CPU-local `local64_t`, safe against interrupts and NMIs
    /// on that CPU, not against another CPU's updates.
    pub fn add_count(&self, delta: u64) {
        // SAFETY: By the type invariants the event is valid; its count is a `local64_t`, updated
        // atomically. The count wraps, as in C.
        unsafe {
            bindings::local64_add(
                delta as i64,
                core::ptr::addr_of_mut!((*self.as_raw()).count),
            )
        }
    }

    /// Returns whether the event samples the branch stack (the C `has_branch_stack()`).
    pub fn has_branch_stack(&self) -> bool {
        const BRANCH_STACK: u64 =
            bindings::perf_event_sample_format_PERF_SAMPLE_BRANCH_STACK as u64;
        // SAFETY: By the type invariants the event is valid; `sample_type` does not change.
        unsafe { (*self.as_raw()).attr.sample_type & BRANCH_STACK != 0 }
    }
}
