// The signalling service this page talks to. Empty: the server that serves
// the page (the embedded signalling-server does both). Set it to the
// Worker's URL when the page is hosted elsewhere. `?signal=URL` overrides it
// for one visit only when it names this page's origin or this configured one.
window.SIGNALING_URL = "";
