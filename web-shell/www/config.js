// The signalling service this page talks to. Empty: the server that serves
// the page (the embedded signalling-server does both). Set it to the
// Worker's URL when the page is hosted elsewhere; `?signal=URL` overrides it.
window.SIGNALING_URL = "";
