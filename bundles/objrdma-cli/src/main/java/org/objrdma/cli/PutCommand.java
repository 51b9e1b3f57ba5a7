package org.objrdma.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "put", mixinStandardHelpOptions = true, description = "Uploads a file as s3://BUCKET/KEY.")
final class PutCommand implements Callable<Integer> {
    @ParentCommand
    Main main;
    @Mixin
    CommonOptions options;
    @Parameters(index = "0", paramLabel = "FILE")
    Path source;
    @Parameters(index = "1", paramLabel = "s3://BUCKET/KEY")
    String target;

    @Override
    public Integer call() throws Exception {
        S3Uri to = S3Uri.parse(target);
        FileTransfers.checkChunk(options.chunkSize);
        if (!Files.isReadable(source)) {
            throw new UserError(ExitCodes.LOCAL_IO, "cannot read " + source + " (no such file, or not readable)");
        }
        ClientConfig config = ClientConfig.resolve(options.flags(), main.env);
        try (Connection c = Connection.open(config, options.protocol, options.bindAddress, options.rdmaMinBytes)) {
            FileTransfers.Outcome o = FileTransfers.put(c, source, to, options.chunkSize,
                    new Progress(main.err, !options.noProgress && Progress.terminal(), Files.size(source)));
            Summary.print(main, options, "upload: " + source + " to " + to, o);
        }
        return ExitCodes.OK;
    }
}
