//! The screen flow as a pure state machine: title, local play, online
//! lobby, match, result.

/// Which screen is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// The title screen. `online` says whether the Online button is shown
    /// (the browser offers WebRTC, WebSockets and secure random numbers; the
    /// signalling address always has a default, this page's origin).
    Title {
        /// The Online button is shown.
        online: bool,
    },
    /// A local game on this machine.
    LocalPlay,
    /// The online lobby.
    Lobby,
    /// An online match is being played.
    Match,
    /// A recorded match is being watched; Back returns to `back` (the
    /// title, or the result of the match just played).
    Replay {
        /// The screen Back returns to.
        back: Box<Screen>,
    },
    /// A match ended; `message` says how.
    Result {
        /// What happened, for the player.
        message: String,
        /// Return to the lobby (online) or the title (local) afterwards.
        online: bool,
    },
}

/// What the player or the network did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScreenEvent {
    /// Title: Local play.
    ChooseLocal,
    /// Title: Online.
    ChooseOnline,
    /// Back/Leave on the current screen.
    Back,
    /// The match data channels opened.
    MatchStarted,
    /// A local or online game ended with this message.
    Ended(String),
    /// Continue on the result screen.
    Continue,
    /// Watch a replay: a file opened on the title screen, or the game just
    /// played (from the result screen, or local play once it is over).
    WatchReplay,
}

/// The screen machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screens {
    screen: Screen,
    online_available: bool,
}

impl Screens {
    /// Starts on the title screen; `online_available` is false when the
    /// browser lacks WebRTC, WebSockets or secure random numbers.
    #[must_use]
    pub fn new(online_available: bool) -> Screens {
        Screens {
            screen: Screen::Title {
                online: online_available,
            },
            online_available,
        }
    }

    /// The current screen.
    #[must_use]
    pub fn screen(&self) -> &Screen {
        &self.screen
    }

    /// Applies an event; returns `true` if the screen changed. Events that
    /// make no sense on the current screen are ignored.
    pub fn handle(&mut self, event: ScreenEvent) -> bool {
        let title = Screen::Title {
            online: self.online_available,
        };
        let next = match (&self.screen, event) {
            (Screen::Title { .. }, ScreenEvent::ChooseLocal) => Screen::LocalPlay,
            (Screen::Title { .. }, ScreenEvent::ChooseOnline) if self.online_available => {
                Screen::Lobby
            }
            (Screen::LocalPlay, ScreenEvent::Back) => title,
            (Screen::LocalPlay, ScreenEvent::Ended(message)) => Screen::Result {
                message,
                online: false,
            },
            (Screen::Lobby, ScreenEvent::Back) => title,
            (Screen::Lobby, ScreenEvent::MatchStarted) => Screen::Match,
            // A rematch over the same connections, from the result screen.
            (Screen::Result { online: true, .. }, ScreenEvent::MatchStarted) => Screen::Match,
            (Screen::Match, ScreenEvent::Ended(message)) => Screen::Result {
                message,
                online: true,
            },
            (Screen::Match, ScreenEvent::Back) => Screen::Result {
                message: "You left the online match.".to_owned(),
                online: true,
            },
            (Screen::Title { .. } | Screen::LocalPlay, ScreenEvent::WatchReplay) => {
                Screen::Replay {
                    back: Box::new(title),
                }
            }
            (Screen::Result { .. }, ScreenEvent::WatchReplay) => Screen::Replay {
                back: Box::new(self.screen.clone()),
            },
            (Screen::Replay { back }, ScreenEvent::Back | ScreenEvent::Continue) => {
                (**back).clone()
            }
            (Screen::Result { online: true, .. }, ScreenEvent::Continue | ScreenEvent::Back) => {
                Screen::Lobby
            }
            (Screen::Result { online: false, .. }, ScreenEvent::Continue | ScreenEvent::Back) => {
                title
            }
            _ => return false,
        };
        self.screen = next;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn online_round_trip() {
        let mut s = Screens::new(true);
        assert_eq!(s.screen(), &Screen::Title { online: true });
        assert!(s.handle(ScreenEvent::ChooseOnline));
        assert_eq!(s.screen(), &Screen::Lobby);
        assert!(s.handle(ScreenEvent::MatchStarted));
        assert!(s.handle(ScreenEvent::Ended(
            "The other player left the match.".into()
        )));
        assert_eq!(
            s.screen(),
            &Screen::Result {
                message: "The other player left the match.".into(),
                online: true
            }
        );
        assert!(s.handle(ScreenEvent::Continue));
        assert_eq!(s.screen(), &Screen::Lobby);
        assert!(s.handle(ScreenEvent::Back));
        assert_eq!(s.screen(), &Screen::Title { online: true });
    }

    #[test]
    fn local_round_trip() {
        let mut s = Screens::new(true);
        assert!(s.handle(ScreenEvent::ChooseLocal));
        assert!(s.handle(ScreenEvent::Ended("Home wins".into())));
        assert!(s.handle(ScreenEvent::Continue));
        assert_eq!(s.screen(), &Screen::Title { online: true });
        assert!(s.handle(ScreenEvent::ChooseLocal));
        assert!(s.handle(ScreenEvent::Back));
        assert_eq!(s.screen(), &Screen::Title { online: true });
    }

    #[test]
    fn a_replay_returns_to_where_it_was_opened() {
        let mut s = Screens::new(true);
        // From the title (a file).
        assert!(s.handle(ScreenEvent::WatchReplay));
        assert!(matches!(s.screen(), Screen::Replay { .. }));
        assert!(!s.handle(ScreenEvent::ChooseLocal), "no game from a replay");
        assert!(s.handle(ScreenEvent::Back));
        assert_eq!(s.screen(), &Screen::Title { online: true });
        // From a finished local game: back to the title.
        s.handle(ScreenEvent::ChooseLocal);
        assert!(s.handle(ScreenEvent::WatchReplay));
        assert!(s.handle(ScreenEvent::Back));
        assert_eq!(s.screen(), &Screen::Title { online: true });
        // From a match's result: back to that result.
        s.handle(ScreenEvent::ChooseOnline);
        s.handle(ScreenEvent::MatchStarted);
        s.handle(ScreenEvent::Ended("Over.".into()));
        let result = s.screen().clone();
        assert!(s.handle(ScreenEvent::WatchReplay));
        assert!(
            !s.handle(ScreenEvent::MatchStarted),
            "no match from a replay"
        );
        assert!(s.handle(ScreenEvent::Back));
        assert_eq!(s.screen(), &result);
        // Not from the lobby or a match.
        s.handle(ScreenEvent::Continue);
        assert!(!s.handle(ScreenEvent::WatchReplay));
        s.handle(ScreenEvent::MatchStarted);
        assert!(!s.handle(ScreenEvent::WatchReplay));
    }

    #[test]
    fn online_is_unavailable_without_webrtc() {
        let mut s = Screens::new(false);
        assert_eq!(s.screen(), &Screen::Title { online: false });
        assert!(!s.handle(ScreenEvent::ChooseOnline));
        assert_eq!(s.screen(), &Screen::Title { online: false });
    }

    #[test]
    fn leaving_a_match_shows_a_result() {
        let mut s = Screens::new(true);
        s.handle(ScreenEvent::ChooseOnline);
        s.handle(ScreenEvent::MatchStarted);
        s.handle(ScreenEvent::Back);
        assert_eq!(
            s.screen(),
            &Screen::Result {
                message: "You left the online match.".into(),
                online: true
            }
        );
    }

    #[test]
    fn events_out_of_place_are_ignored() {
        let mut s = Screens::new(true);
        for e in [
            ScreenEvent::Back,
            ScreenEvent::MatchStarted,
            ScreenEvent::Continue,
            ScreenEvent::Ended("x".into()),
        ] {
            assert!(!s.handle(e));
        }
        s.handle(ScreenEvent::ChooseOnline);
        assert!(!s.handle(ScreenEvent::ChooseLocal));
        assert!(!s.handle(ScreenEvent::Ended("x".into())));
    }
}
