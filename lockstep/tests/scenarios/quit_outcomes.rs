//! Quitting gives LocalQuit on the side that left and RemoteQuit on the
//! other, whether or not the quitter closes its transport right after.
use crate::common;

use common::running_pair;
use lockstep::{Outcome, Transport};

#[test]
fn host_quits() {
    common::in_both_modes(|mode| {
        let mut p = running_pair(mode, 41);
        let now = p.now();
        p.host.quit(now);
        assert_eq!(
            p.run_until_both_end(p.frame() + 120),
            (Some(Outcome::LocalQuit), Some(Outcome::RemoteQuit))
        );
    });
}

#[test]
fn guest_quits_and_closes_the_transport() {
    common::in_both_modes(|mode| {
        let mut p = running_pair(mode, 42);
        let now = p.now();
        p.guest.quit(now);
        // The driver sends the Bye, then closes its end.
        p.pump_guest(now);
        p.link_mut().1.close();
        assert_eq!(
            p.run_until_both_end(p.frame() + 120),
            (Some(Outcome::RemoteQuit), Some(Outcome::LocalQuit))
        );
    });
}
