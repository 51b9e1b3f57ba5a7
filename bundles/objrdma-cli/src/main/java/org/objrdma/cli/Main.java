package org.objrdma.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import org.objrdma.client.sdk.RdmaS3Exception;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;

/** {@code bin/objrdma}: the command line's root; {@link #run} is the whole program for a given environment. */
@Command(name = "objrdma", mixinStandardHelpOptions = true, version = "objrdma 0.1.0",
        description = "Moves S3 objects through an objrdma gateway over cuObject, hipobj-rc-v2 or plain HTTP.",
        subcommands = {GetCommand.class, PutCommand.class, BenchCommand.class},
        footer = {"", "Exit codes: 0 done, 1 refused or failed, 2 bad command line, 3 no endpoint / credential /"
                + " JDK, 4 local file error."})
public final class Main implements Callable<Integer> {
    final Map<String, String> env;
    final PrintStream out;
    final PrintStream err;

    Main(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    /** Runs one command line; returns the exit code. Nothing it catches prints a stack trace unless OBJRDMA_DEBUG is set. */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        Main main = new Main(env, out, err);
        CommandLine cl = new CommandLine(main);
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> main.report(e));
        return cl.execute(args);
    }

    @Override
    public Integer call() {
        new CommandLine(this).usage(out);
        return ExitCodes.USAGE;
    }

    /**
     * What went wrong in TLS, or null when {@code e} is no TLS failure: the handshake's own message (e.g. "PKIX path
     * building failed: ...") and the deepest certificate cause (e.g. CertificateExpiredException and its dates).
     */
    static String tlsFailure(Throwable e) {
        Throwable handshake = null;
        Throwable deepest = null;
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof javax.net.ssl.SSLException && handshake == null) {
                handshake = c;
            }
            if (c instanceof javax.net.ssl.SSLException || c instanceof java.security.cert.CertificateException
                    || c instanceof java.security.cert.CertPathValidatorException) {
                deepest = c;
            }
        }
        if (deepest == null) {
            return null;
        }
        Throwable first = handshake != null ? handshake : deepest;
        String text = first.getClass().getSimpleName() + ": " + first.getMessage();
        return deepest == first ? text : text + " [" + deepest.getClass().getSimpleName() + ": "
                + deepest.getMessage() + "]";
    }

    private int report(Exception e) {
        int code;
        String message;
        if (e instanceof UserError u) {
            code = u.exitCode();
            message = u.getMessage();
        } else if (tlsFailure(e) != null) {
            // a certificate the client does not trust (wrong CA, expired, another host's name) or no TLS at all
            code = ExitCodes.FAILED;
            message = "TLS with the gateway failed: " + tlsFailure(e) + " (check --ca-bundle / AWS_CA_BUNDLE: the"
                    + " gateway's certificate must chain to it, be valid now and name the endpoint's host)";
        } else if (e instanceof AwsServiceException s) {
            code = ExitCodes.FAILED;
            String detail;
            if (s.awsErrorDetails() != null && s.awsErrorDetails().errorCode() != null) {
                detail = s.awsErrorDetails().errorCode() + ": " + s.awsErrorDetails().errorMessage();
            } else { // a HEAD's refusal has no body: the status line is all there is
                detail = (s.awsErrorDetails() == null ? java.util.Optional.<String>empty()
                        : s.awsErrorDetails().sdkHttpResponse().statusText()).orElse("(no error body)");
            }
            message = "the gateway refused the request: " + s.statusCode() + " " + detail;
        } else if (e instanceof RdmaS3Exception r) {
            code = ExitCodes.FAILED;
            message = r.getMessage();
        } else if (e instanceof SdkClientException || e instanceof UncheckedIOException) {
            code = ExitCodes.FAILED;
            message = "cannot reach the gateway: " + e.getMessage();
        } else if (e instanceof IllegalArgumentException) {
            code = ExitCodes.USAGE;
            message = e.getMessage();
        } else {
            code = ExitCodes.FAILED;
            message = e + " (set OBJRDMA_DEBUG=1 for the stack trace)";
        }
        err.println("objrdma: " + message);
        if (env.get("OBJRDMA_DEBUG") != null) {
            e.printStackTrace(err);
        }
        return code;
    }
}
