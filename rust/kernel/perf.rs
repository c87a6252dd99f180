// SPDX-License-Identifier: GPL-2.0

//! Performance events.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)
//!
//! Building blocks for PMUs (sources of perf events) written in Rust.

use crate::bindings;

/// Returns whether the current task may monitor the system with perf.
///
/// This is the C `perfmon_capable()`: true when the task has `CAP_PERFMON` or `CAP_SYS_ADMIN`
/// in the initial user namespace. As with every capability check, a successful one marks the
/// task as having used a privilege.
///
/// # Examples
///
/// Kernel threads, the KUnit runner among them, hold every capability:
///
/// ```
/// assert!(kernel::perf::perfmon_capable());
/// ```
pub fn perfmon_capable() -> bool {
    // SAFETY: `perfmon_capable` only reads the credentials of the current task, which exist in
    // any context that can call into Rust.
    unsafe { bindings::perfmon_capable() }
}

/// Returns whether the current task has `CAP_SYS_ADMIN` in the initial user namespace.
///
/// # Examples
///
/// ```
/// assert!(kernel::perf::sys_admin_capable());
/// ```
pub fn sys_admin_capable() -> bool {
    // The capability numbers are small constants of the user-space ABI.
    const CAP_SYS_ADMIN: i32 = bindings::CAP_SYS_ADMIN as i32;
    // SAFETY: `capable` only reads the credentials of the current task, which exist in any
    // context that can call into Rust.
    unsafe { bindings::capable(CAP_SYS_ADMIN) }
}
