// SPDX-License-Identifier: GPL-2.0

//! The `kprobe` and `uprobe` PMUs: perf events on probes created by `perf_event_open()` alone,
//! without tracefs.
//!
//! The user-space ABI is that of the C PMUs in `kernel/events/core.c`:
//!
//! - `config` bit 0 probes the function's return (sysfs `format/retprobe` = `config:0`);
//! - kprobe: `config1` is a user pointer to the function's name, `config2` the offset into the
//!   function; with no name (`config1` = 0, or an empty string) `config2` is the address;
//! - uprobe: `config1` is a user pointer to the file's path, `config2` the offset in the file,
//!   and `config` bits 32-63 the file offset of the reference counter (USDT semaphore, sysfs
//!   `format/ref_ctr_offset` = `config:32-63`).

use kernel::{
    bindings, c_str,
    perf::{Event, EventInit, FormatAttribute, Pmu, Prepared, Registration},
    prelude::*,
    uaccess::{UserCString, UserPtr},
};

/// The prefix of this file's messages (the `module!` macro defines it for modules).
const __LOG_PREFIX: &[u8] = b"perf\0";

/// `config` bit 0: probe the function's return.
const RETPROBE: u64 = 1 << 0;

/// `config` bits 32-63: the reference counter's file offset (uprobe).
#[cfg(CONFIG_UPROBE_EVENTS)]
const REF_CTR_OFFSET_SHIFT: u32 = 32;

/// The longest function name a kprobe takes, with its NUL.
#[cfg(CONFIG_KPROBE_EVENTS)]
const KPROBE_FUNC_MAX: usize = bindings::KSYM_NAME_LEN as usize;

/// The longest path a uprobe takes, with its NUL.
#[cfg(CONFIG_UPROBE_EVENTS)]
const UPROBE_PATH_MAX: usize = bindings::PATH_MAX as usize;

const RETPROBE_FORMAT: FormatAttribute =
    FormatAttribute::new(c_str!("retprobe"), c_str!("config:0"));

/// Checks what the kprobe and uprobe PMUs check first, in the order the C PMUs do: `capable`
/// is the privilege check, made once the event is known to be of this PMU.
fn check_event(event: &Event, capable: impl FnOnce() -> bool) -> Result {
    if event.attr_type() != event.pmu_type() {
        return Err(ENOENT);
    }
    if !capable() {
        return Err(EACCES);
    }
    // No branch sampling for probe events.
    if event.has_branch_stack() {
        return Err(EOPNOTSUPP);
    }
    Ok(())
}

/// Copies the NUL-terminated string at the opener's address `addr`, of at most `max_len` bytes
/// with its NUL. A longer one is `E2BIG`, as perf says.
fn user_string(addr: u64, max_len: usize) -> Result<UserCString> {
    UserCString::copy_from_user(addr as UserPtr, max_len).map_err(|e| {
        if e == EINVAL {
            E2BIG
        } else {
            e
        }
    })
}

#[cfg(CONFIG_KPROBE_EVENTS)]
struct KprobePmu;

#[cfg(CONFIG_KPROBE_EVENTS)]
#[vtable]
impl Pmu for KprobePmu {
    const NAME: &'static CStr = c_str!("kprobe");
    const FORMAT: &'static [FormatAttribute] = &[RETPROBE_FORMAT];
    const TRACE_EVENTS: bool = true;

    fn event_init(event: EventInit<'_, Self>) -> Result<Prepared<'_, Self>> {
        check_event(&event, || event.perfmon_capable())?;
        let func = match event.config1() {
            0 => None,
            addr => Some(user_string(addr, KPROBE_FUNC_MAX)?),
        };
        // An empty name, like none, means the address in `config2`.
        let func = func.as_deref().filter(|func| !func.is_empty());
        let retprobe = event.config() & RETPROBE != 0;
        event.init_kprobe(func, retprobe)
    }
}

#[cfg(CONFIG_UPROBE_EVENTS)]
struct UprobePmu;

#[cfg(CONFIG_UPROBE_EVENTS)]
#[vtable]
impl Pmu for UprobePmu {
    const NAME: &'static CStr = c_str!("uprobe");
    const FORMAT: &'static [FormatAttribute] = &[
        RETPROBE_FORMAT,
        FormatAttribute::new(c_str!("ref_ctr_offset"), c_str!("config:32-63")),
    ];
    const TRACE_EVENTS: bool = true;

    fn event_init(event: EventInit<'_, Self>) -> Result<Prepared<'_, Self>> {
        check_event(&event, || event.sys_admin_capable())?;
        if event.config1() == 0 {
            return Err(EINVAL);
        }
        let path = user_string(event.config1(), UPROBE_PATH_MAX)?;
        if path.is_empty() {
            return Err(EINVAL);
        }
        let ref_ctr_offset = (event.config() >> REF_CTR_OFFSET_SHIFT) as usize;
        let retprobe = event.config() & RETPROBE != 0;
        event.init_uprobe(&path, ref_ctr_offset, retprobe)
    }
}

/// Registers `T` for the life of the kernel.
fn register<T: Pmu>() {
    if let Err(e) = Registration::<T>::new_builtin() {
        pr_err!("cannot register the {} PMU: {:?}\n", T::NAME, e);
    }
}

/// Registers the kprobe and uprobe PMUs.
///
/// Called once by the perf core at boot, where it would register the C PMUs, so that they get
/// the same type numbers.
#[no_mangle]
pub extern "C" fn perf_probe_pmu_rust_init() {
    #[cfg(CONFIG_KPROBE_EVENTS)]
    register::<KprobePmu>();
    #[cfg(CONFIG_UPROBE_EVENTS)]
    register::<UprobePmu>();
}
