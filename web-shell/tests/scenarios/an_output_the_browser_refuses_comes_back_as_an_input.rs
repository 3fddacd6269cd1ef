//! An output the browser refuses to carry out (a socket, peer connection
//! or relay socket it will not open, a download it cannot offer) comes
//! back to the shell as the input that says so, as `Output::refused`
//! names it; the page feeds it and the shell goes on as after any failure.

use web_shell::id::PeerId;
use web_shell::shell::{FileLink, Input, LinkId, Output, RtcEvent, SdpStep, SocketId};

#[test]
fn an_output_the_browser_refuses_comes_back_as_an_input() {
    let peer = LinkId::Mesh(PeerId::parse("AAAAAAAAAAAA").unwrap());
    let closed = |link: LinkId, tag| Input::Rtc {
        link,
        tag,
        event: RtcEvent::Closed,
    };
    let cases = [
        (
            Output::OpenSocket {
                id: SocketId::Room(7),
                url: "ws://localhost/rooms/RMQK22/ws?role=host".into(),
            },
            Some(Input::SocketClosed(SocketId::Room(7))),
        ),
        (
            Output::CreatePeer {
                link: peer.clone(),
                tag: 2,
                ice_servers: "[]".into(),
            },
            Some(closed(peer.clone(), 2)),
        ),
        (
            Output::OpenRelay {
                link: LinkId::Match,
                tag: 5,
                url: "ws://localhost/relay/RMQK22/ws?ticket=t".into(),
            },
            Some(closed(LinkId::Match, 5)),
        ),
        (
            Output::OpenRelay {
                link: LinkId::Party(2),
                tag: 6,
                url: "ws://localhost/relay/RMQK22/ws?ticket=t".into(),
            },
            Some(closed(LinkId::Party(2), 6)),
        ),
        (
            Output::Offer {
                link: FileLink::Report,
                file: None,
            },
            Some(Input::OfferFailed(FileLink::Report)),
        ),
        // Reported by the events of what they act on, or by nothing.
        (
            Output::Describe {
                link: peer,
                tag: 2,
                step: SdpStep::Offer,
            },
            None,
        ),
        (Output::CloseSocket(SocketId::Presence(1)), None),
        (Output::Paint, None),
    ];
    for (out, input) in cases {
        assert_eq!(out.refused(), input, "{out:?}");
    }
}
