//! The protocol era of a gateway connection: what decides every method's params (both eras'
//! schemas are closed, so a field of one era is refused by the other)
//! and how some answers read.

/// The gateway protocol a connection negotiated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Era {
    /// Protocol 3: OpenClaw 2026.1.x (and clawdbot), the documents' era.
    #[default]
    V3,
    /// Protocol 4: OpenClaw 2026.9.x.
    V4,
}

impl Era {
    /// The era of a negotiated protocol; fails naming what the wire cannot speak.
    pub fn of_protocol(protocol: u32) -> Result<Era, String> {
        match protocol {
            3 => Ok(Era::V3),
            4 => Ok(Era::V4),
            other => Err(format!("the gateway wire speaks gateway protocols 3 and 4, not {other}")),
        }
    }

    /// The protocol number.
    pub fn protocol(self) -> u32 {
        match self {
            Era::V3 => 3,
            Era::V4 => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_3_and_4_are_spoken_and_others_named() {
        assert_eq!(Era::of_protocol(3), Ok(Era::V3));
        assert_eq!(Era::of_protocol(4).map(Era::protocol), Ok(4));
        assert_eq!(Era::of_protocol(5), Err("the gateway wire speaks gateway protocols 3 and 4, not 5".into()));
    }
}
