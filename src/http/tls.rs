//! TLS for https targets: the client configuration (web PKI roots, an extra CA file,
//! or no verification for self-signed test servers).

use std::path::Path;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_rustls::TlsConnector;

/// The TLS client configuration for https targets: the bundled web PKI roots plus
/// `cacert`, or no verification at all with `insecure` (for self-signed test servers).
pub fn tls_connector(insecure: bool, cacert: Option<&Path>) -> Result<TlsConnector, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let mut config = if insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(NoVerification(provider)))
            .with_no_client_auth()
    } else {
        let mut roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        if let Some(path) = cacert {
            use rustls::pki_types::pem::PemObject;
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("cannot read --cacert {}: {e}", path.display()))?
                .collect::<Result<_, _>>()
                .map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            if certs.is_empty() {
                return Err(format!(
                    "--cacert {}: no PEM certificates found",
                    path.display()
                ));
            }
            for c in certs {
                roots
                    .add(c)
                    .map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            }
        }
        builder.with_root_certificates(roots).with_no_client_auth()
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsConnector::from(Arc::new(config)))
}

/// The same configuration offering HTTP/2 first in ALPN (`--http2` on https targets):
/// the server picks, and a server that knows only HTTP/1.1 is still spoken to.
pub fn offer_h2(connector: &TlsConnector) -> TlsConnector {
    let mut config = (**connector.config()).clone();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    TlsConnector::from(Arc::new(config))
}

/// `--insecure`: accept any certificate, but still check handshake signatures are well formed.
#[derive(Debug)]
struct NoVerification(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cacert_errors_name_the_file() {
        let e = tls_connector(false, Some(Path::new("/nonexistent/ca.pem")))
            .err()
            .unwrap();
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
        assert!(tls_connector(true, None).is_ok());
        assert!(tls_connector(false, None).is_ok());
    }

    #[test]
    fn offer_h2_puts_h2_first_and_keeps_http11() {
        let c = offer_h2(&tls_connector(true, None).unwrap());
        assert_eq!(
            c.config().alpn_protocols,
            vec![b"h2".to_vec(), b"http/1.1".to_vec()]
        );
    }
}
