package org.objrdma.cli;

import org.objrdma.client.sdk.RdmaProtocol;
import org.objrdma.client.sdk.RdmaS3;
import picocli.CommandLine.Option;

/** The options every transfer command takes. */
final class CommonOptions {
    @Option(names = "--endpoint-url", paramLabel = "URL", description = "the gateway, e.g. http://127.0.0.1:8181"
            + " (else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's endpoint_url)")
    String endpointUrl;

    @Option(names = "--ca-bundle", paramLabel = "FILE", description = "PEM file of the certificates an https"
            + " endpoint is checked against, instead of the JDK's trust store (else AWS_CA_BUNDLE, the profile's"
            + " ca_bundle), e.g. the CA file ./run.sh prints")
    String caBundle;

    @Option(names = "--profile", paramLabel = "NAME", description = "profile of ~/.aws/config and ~/.aws/credentials"
            + " (else AWS_PROFILE, else default); an explicit --profile wins over AWS_ACCESS_KEY_ID")
    String profile;

    @Option(names = "--region", paramLabel = "REGION", description = "signing region (else AWS_REGION,"
            + " AWS_DEFAULT_REGION, the profile's region, us-east-1)")
    String region;

    @Option(names = "--protocol", paramLabel = "cuobj|rc|http", defaultValue = "cuobj",
            converter = ProtocolConverter.class, description = "how the bytes move (default: ${DEFAULT-VALUE});"
            + " a gateway that declines RDMA, or refuses it as busy before any byte moved, is answered over HTTP")
    RdmaProtocol protocol;

    @Option(names = "--bind-address", paramLabel = "IP", description = "address of this client's memory agent that"
            + " the gateway dials (default: the local address routed to the endpoint)")
    String bindAddress;

    @Option(names = "--chunk-size", paramLabel = "SIZE", defaultValue = "64MiB", converter = SizeConverter.class,
            description = "registered buffer, and the most one request moves; larger objects go as ranged GETs or"
            + " multipart parts of this size (default: ${DEFAULT-VALUE}, at most 1GiB)")
    long chunkSize;

    @Option(names = "--rdma-min-bytes", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "transfers (a PUT, a part, a ranged GET) below this go over plain HTTP without asking for"
            + " RDMA: there plain HTTP is faster (default: ${DEFAULT-VALUE} bytes, the SDK's measured crossover;"
            + " 1B: always ask)")
    long rdmaMinBytes = RdmaS3.DEFAULT_MIN_BYTES;

    @Option(names = "--no-progress", description = "no progress bar (it is drawn only when stderr is a terminal)")
    boolean noProgress;

    @Option(names = {"-q", "--quiet"}, description = "print nothing on success")
    boolean quiet;

    ClientConfig.Flags flags() {
        return new ClientConfig.Flags(endpointUrl, profile, region, caBundle);
    }

    static final class ProtocolConverter implements picocli.CommandLine.ITypeConverter<RdmaProtocol> {
        @Override
        public RdmaProtocol convert(String value) {
            return RdmaProtocol.parse(value);
        }
    }

    static final class SizeConverter implements picocli.CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return Sizes.parse(value);
        }
    }
}
