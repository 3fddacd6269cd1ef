//! A host with a seated guest, and a seated guest, fed arbitrary datagrams
//! (the input is cut into datagrams at length bytes): neither panics, and
//! the host never holds more seats than it has.
#![no_main]

use arena::{Arena, Control};
use authority::{exchange_in_memory, Guest, Host, HostConfig, Millis};
use libfuzzer_sys::fuzz_target;
use lockstep::Channel;

fuzz_target!(|data: &[u8]| {
    // Cannot fail: the default configuration is valid.
    let mut host = Host::new(Arena::new(1), HostConfig::new(1)).expect("valid config");
    let link = host.handle_connect(Millis(0));
    let mut guest = Guest::<Arena>::new(Millis(0), None);
    let mut now = Millis(0);
    // Seat the guest over a perfect in-memory link.
    for _ in 0..20 {
        now = now + Millis(10);
        exchange_in_memory(&mut host, link, &mut guest, now, |_, _| {});
    }
    guest.command(&Control { thrust: true, turn: 1, fire: true });
    let mut rest = data;
    while let Some((&len, tail)) = rest.split_first() {
        let n = usize::from(len & 0x7f).min(tail.len());
        let (datagram, tail) = tail.split_at(n);
        rest = tail;
        let channel = if len & 0x80 != 0 { Channel::Reliable } else { Channel::Unreliable };
        now = now + Millis(5);
        host.handle_datagram(now, link, channel, datagram);
        guest.handle_datagram(now, channel, datagram);
        host.handle_timeout(now);
        guest.handle_timeout(now);
        while host.poll_transmit().is_some() {}
        while host.poll_close().is_some() {}
        while host.poll_event().is_some() {}
        while guest.poll_transmit().is_some() {}
        while guest.poll_event().is_some() {}
        assert!(host.seats().count() <= 1);
    }
});
