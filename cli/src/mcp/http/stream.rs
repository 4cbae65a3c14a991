//! An SSE answer as the gate hands it to hyper: it holds its token's stream slot and its
//! session's activity for as long as it is open, and a listening stream ends at its
//! lifetime (between two events: rmcp writes each event as one frame).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use tokio::time::Sleep;

use super::quota::Permit;
use super::sessions::Activity;
use super::Body;

/// An open stream.
pub struct HeldStream {
    body: Body,
    end: Option<Pin<Box<Sleep>>>,
    ended: bool,
    _slot: Permit,
    _activity: Option<Activity>,
}

impl HeldStream {
    /// `lifetime`: when the stream ends even if rmcp has more to say (listening streams).
    pub fn new(body: Body, slot: Permit, activity: Option<Activity>, lifetime: Option<Duration>) -> HeldStream {
        HeldStream { body, end: lifetime.map(|l| Box::pin(tokio::time::sleep(l))), ended: false, _slot: slot, _activity: activity }
    }
}

impl HttpBody for HeldStream {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        if let Some(end) = &mut this.end {
            if end.as_mut().poll(cx).is_ready() {
                this.ended = true;
                return Poll::Ready(None);
            }
        }
        Pin::new(&mut this.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        if self.ended {
            SizeHint::with_exact(0)
        } else {
            self.body.size_hint()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::http::quota::Quota;
    use http_body_util::BodyExt;

    /// A body that sends a ping every 15 s, forever (as rmcp's keep-alive does).
    struct Pings {
        next: Option<Pin<Box<Sleep>>>,
    }

    impl HttpBody for Pings {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            let this = self.get_mut();
            if let Some(next) = &mut this.next {
                if next.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
            }
            this.next = Some(Box::pin(tokio::time::sleep(Duration::from_secs(15))));
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b": ping\n\n")))))
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_listening_stream_ends_at_its_lifetime_and_gives_its_slot_back() {
        let quota = Quota::new(1);
        let token = [7u8; 32];
        let started = tokio::time::Instant::now();
        let mut stream = HeldStream::new(Pings { next: None }.boxed(), quota.acquire(token).unwrap(), None, Some(Duration::from_secs(300)));
        assert!(quota.acquire(token).is_none(), "the open stream holds the slot");
        // Paused time: each wait jumps to the next ping, then to the lifetime.
        let mut pings = 0;
        while let Some(frame) = stream.frame().await {
            assert_eq!(frame.unwrap().into_data().unwrap(), Bytes::from_static(b": ping\n\n"));
            pings += 1;
        }
        assert_eq!(started.elapsed(), Duration::from_secs(300));
        assert_eq!(pings, 20, "a ping at 0, 15, …, 285 s");
        assert!(stream.is_end_stream());
        drop(stream);
        assert!(quota.acquire(token).is_some(), "the slot is given back");
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_is_not_cut() {
        let quota = Quota::new(1);
        let mut stream = HeldStream::new(Pings { next: None }.boxed(), quota.acquire([7; 32]).unwrap(), None, None);
        for _ in 0..100 {
            stream.frame().await.unwrap().unwrap();
        }
        assert!(!stream.is_end_stream());
    }
}
