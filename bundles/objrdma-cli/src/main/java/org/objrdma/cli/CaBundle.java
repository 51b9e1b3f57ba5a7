package org.objrdma.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The certificates an https gateway is checked against when {@code --ca-bundle} (or {@code AWS_CA_BUNDLE}, or the
 * profile's {@code ca_bundle}) names a PEM file, as the aws CLI takes it: those certificates replace the JDK's
 * default trust store for this run, for the S3Client and the hipobj-rc-v2 routes alike. Host names are checked as
 * usual (the certificate must name the endpoint's host).
 */
final class CaBundle {
    private final Path file;
    private final TrustManager[] trustManagers;

    private CaBundle(Path file, TrustManager[] trustManagers) {
        this.file = file;
        this.trustManagers = trustManagers;
    }

    /** Reads every certificate of {@code file} (PEM or DER); a missing, unreadable or empty file is exit 3. */
    static CaBundle load(Path file) throws UserError {
        Collection<? extends Certificate> certificates;
        try (InputStream in = Files.newInputStream(file)) {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
        } catch (IOException e) {
            throw new UserError(ExitCodes.CONFIG, "cannot read the CA bundle " + file + ": " + e.getMessage());
        } catch (CertificateException e) {
            throw new UserError(ExitCodes.CONFIG, "the CA bundle " + file + " holds no readable certificate: "
                    + e.getMessage());
        }
        if (certificates.isEmpty()) {
            throw new UserError(ExitCodes.CONFIG, "the CA bundle " + file + " holds no certificate");
        }
        try {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (Certificate c : certificates) {
                trusted.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trusted);
            return new CaBundle(file, tmf.getTrustManagers());
        } catch (GeneralSecurityException | IOException e) {
            throw new UserError(ExitCodes.CONFIG, "cannot use the CA bundle " + file + ": " + e.getMessage());
        }
    }

    Path file() {
        return file;
    }

    TrustManager[] trustManagers() {
        return trustManagers.clone();
    }

    /** A TLS context that trusts only this bundle (the JDK's default protocols; its own key managers: none). */
    SSLContext sslContext() throws UserError {
        try {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, trustManagers(), null);
            return tls;
        } catch (GeneralSecurityException e) {
            throw new UserError(ExitCodes.CONFIG, "cannot set up TLS with the CA bundle " + file + ": "
                    + e.getMessage());
        }
    }
}
