package org.objrdma.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "get", mixinStandardHelpOptions = true, description = "Downloads s3://BUCKET/KEY into a file.")
final class GetCommand implements Callable<Integer> {
    @ParentCommand
    Main main;
    @Mixin
    CommonOptions options;
    @Parameters(index = "0", paramLabel = "s3://BUCKET/KEY")
    String source;
    @Parameters(index = "1", paramLabel = "FILE", description = "file, or a directory to put KEY's last segment in")
    Path target;

    @Override
    public Integer call() throws Exception {
        S3Uri from = S3Uri.parse(source);
        FileTransfers.checkChunk(options.chunkSize);
        ClientConfig config = ClientConfig.resolve(options.flags(), main.env);
        try (Connection c = Connection.open(config, options.protocol, options.bindAddress, options.rdmaMinBytes)) {
            FileTransfers.Outcome o = FileTransfers.get(c, from, target, options.chunkSize,
                    size -> new Progress(main.err, !options.noProgress && Progress.terminal(), size));
            Summary.print(main, options, "download: " + from + " to " + target, o);
        }
        return ExitCodes.OK;
    }
}
