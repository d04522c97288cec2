//! `caching_sha2_password`'s full authentication without TLS: the password,
//! NUL-terminated, XOR the login's nonce, encrypted with the server's RSA public
//! key (OAEP with SHA-1, MySQL's `RSA_PKCS1_OAEP_PADDING`; MySQL 8.0.5 and later) by
//! `mysql_common::crypto`. The key is a PEM (`-----BEGIN PUBLIC KEY-----` or
//! `RSA PUBLIC KEY`) read from `server-public-key-path` or fetched from the server;
//! it is checked here before `mysql_common` reads it: a key fetched in the clear is
//! untrusted input, and that crate's DER reader indexes without bounds checks (a
//! truncated key would panic) and would take any modulus size.

use mysql_common::crypto::der::{pem_to_der, PubKeyFileType};

/// The modulus sizes taken, in bits: MySQL's keys are 2048; below 1024 is no
/// protection, above 16384 only costs time.
const BITS: std::ops::RangeInclusive<usize> = 1024..=16384;

/// Checks that `pem` is an RSA public key `encrypt` can use and gives the size of
/// its blocks in bytes (as `mysql_common` counts them); the error says what is wrong.
pub fn check_key(pem: &[u8]) -> Result<usize, String> {
    let (der, kind) = pem_to_der(pem).map_err(|e| format!("not an RSA public key PEM: {e}"))?;
    let bad = |what: &str| format!("not an RSA public key: {what}");
    let mut rsa_key = der.as_slice();
    if kind == PubKeyFileType::Pkcs8 {
        // SubjectPublicKeyInfo: SEQUENCE { SEQUENCE algorithm, BIT STRING key }.
        let (info, _) = tlv(&der, 0x30).ok_or_else(|| bad("no SubjectPublicKeyInfo"))?;
        let (_, rest) = tlv(info, 0x30).ok_or_else(|| bad("no algorithm"))?;
        let (bits, _) = tlv(rest, 0x03).ok_or_else(|| bad("no key bit string"))?;
        match bits.split_first() {
            Some((0, key)) => rsa_key = key,
            _ => return Err(bad("a key bit string with unused bits")),
        }
    }
    // RSAPublicKey: SEQUENCE { INTEGER modulus, INTEGER exponent }.
    let (fields, _) = tlv(rsa_key, 0x30).ok_or_else(|| bad("no RSAPublicKey"))?;
    let (n, rest) = tlv(fields, 0x02).ok_or_else(|| bad("no modulus"))?;
    let (e, _) = tlv(rest, 0x02).ok_or_else(|| bad("no exponent"))?;
    let n = trim_zeros(n);
    let bits = n
        .first()
        .map_or(0, |b| n.len() * 8 - b.leading_zeros() as usize);
    if !BITS.contains(&bits) {
        return Err(format!(
            "an RSA key of {bits} bits; hakaru takes {} to {}",
            BITS.start(),
            BITS.end()
        ));
    }
    if trim_zeros(e).is_empty() || e.len() > n.len() {
        return Err(bad("its exponent"));
    }
    Ok((bits + 6) >> 3)
}

/// One DER element of `tag` at the front of `der`, its length checked against
/// what is there: (its contents, what follows it).
fn tlv(der: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&t, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    if t != tag {
        return None;
    }
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n].iter().fold(0usize, |a, &b| a << 8 | b as usize);
        (len, &rest[n..])
    };
    (len <= rest.len()).then(|| rest.split_at(len))
}

fn trim_zeros(b: &[u8]) -> &[u8] {
    let at = b.iter().position(|&x| x != 0).unwrap_or(b.len());
    &b[at..]
}

/// What the client sends: `password` and a NUL, XOR `nonce` (repeated), encrypted
/// with `pem`'s key. Errors name the key's fault or a password too long for it.
pub fn encrypt_password(password: &[u8], nonce: &[u8], pem: &[u8]) -> Result<Vec<u8>, String> {
    // OAEP with SHA-1 holds k - 42 bytes (RFC 8017); checked here, since
    // mysql_common's own check lets k - 41 through and then underflows.
    let room = check_key(pem)? - 42;
    if password.len() + 1 > room {
        return Err(format!(
            "a password of {} bytes is too long for the server's RSA key ({} at most)",
            password.len(),
            room - 1
        ));
    }
    let mut xored = [password, b"\0"].concat();
    if !nonce.is_empty() {
        for (i, b) in xored.iter_mut().enumerate() {
            *b ^= nonce[i % nonce.len()];
        }
    }
    mysql_common::crypto::encrypt(&xored, pem).map_err(|e| format!("the server's RSA key: {e}"))
}

#[cfg(test)]
/// For tests: a 2048-bit public key as MySQL 8 writes `public_key.pem`.
pub(crate) const TEST_KEY: &str = "-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxVUrqUaHly98cGXccN3P
M9CEiiJXfjNTQg02pCeCLg62FX40FiOYGBWVlG7fTlAIhBeHEsOjHPv3JRJ+fkaa
hjuNY0dOYRLH1lw1oG9hADYlPd2dQ+EK5VmHoVxRg33UaWdeJjDE3osbcZxHF0ey
xlR/XsV0p5SqhFoQpwYeqw19fQSpMk4olmJpLm3ZHUkoX+nAbfEl5XmyigvHtYo1
ramSeI9rdirUCPykqvtkYtMLGczZQEHXSRhAyoNn0ToFPYezHtKCs3MlQ2YsJd9l
mkyq+k0U4oeFgEpL5bANCYF51B9SyXfyEzkly2F9lAfIT7wRSAzEOjEQIxwNj1K9
+QIDAQAB
-----END PUBLIC KEY-----
";

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    fn pem(der: &[u8]) -> String {
        let b64 = base64::engine::general_purpose::STANDARD.encode(der);
        format!("-----BEGIN PUBLIC KEY-----\n{b64}\n-----END PUBLIC KEY-----\n")
    }

    #[test]
    fn a_password_is_encrypted_to_one_block_of_the_key_s_size_and_differs_each_time() {
        check_key(TEST_KEY.as_bytes()).unwrap();
        let a = encrypt_password(b"secret", &[7; 20], TEST_KEY.as_bytes()).unwrap();
        let b = encrypt_password(b"secret", &[7; 20], TEST_KEY.as_bytes()).unwrap();
        assert_eq!(a.len(), 256);
        assert_ne!(a, b, "OAEP's seed is random");
        // 256 - 2*20 - 2 = 214 bytes of message at most, the NUL among them. 215
        // is the one mysql_common's check misses (a panic, were it not checked).
        assert!(encrypt_password(&[b'x'; 213], &[7; 20], TEST_KEY.as_bytes()).is_ok());
        for long in [214, 215, 300] {
            let e = encrypt_password(&vec![b'x'; long], &[7; 20], TEST_KEY.as_bytes()).unwrap_err();
            assert!(e.contains("too long") && e.contains("213 at most"), "{e}");
        }
    }

    /// mysql_common's own reader panics on these (it indexes past the end); a key a
    /// server sends in the clear must be an error, never a panic.
    #[test]
    fn a_truncated_or_hostile_key_from_the_server_is_an_error_not_a_panic() {
        let der = pem_to_der(TEST_KEY.as_bytes()).unwrap().0;
        for cut in [0, 1, 2, 5, 20, 24, 30, 200, der.len() - 1] {
            let e = check_key(pem(&der[..cut]).as_bytes()).unwrap_err();
            assert!(e.contains("RSA"), "{cut}: {e}");
            assert!(encrypt_password(b"pw", &[1; 20], pem(&der[..cut]).as_bytes()).is_err());
        }
        for hostile in [
            &[0x30, 0x84, 0xff, 0xff, 0xff, 0xff][..],
            &[0x30, 0x00],
            &[0x30, 0x02, 0x30, 0x00],
            &[0x30, 0x06, 0x30, 0x00, 0x03, 0x00, 0x00, 0x00],
        ] {
            assert!(check_key(pem(hostile).as_bytes()).is_err(), "{hostile:?}");
        }
        assert!(check_key(b"not a key").is_err());
        // A 512-bit modulus is refused by its size.
        let mut small = vec![0x30, 0x48, 0x02, 0x41, 0x00];
        small.extend_from_slice(&[0xc5; 64]);
        small.extend_from_slice(&[0x02, 0x03, 1, 0, 1]);
        let p = format!(
            "-----BEGIN RSA PUBLIC KEY-----\n{}\n-----END RSA PUBLIC KEY-----\n",
            base64::engine::general_purpose::STANDARD.encode(&small)
        );
        let e = check_key(p.as_bytes()).unwrap_err();
        assert!(e.contains("512 bits"), "{e}");
    }
}
