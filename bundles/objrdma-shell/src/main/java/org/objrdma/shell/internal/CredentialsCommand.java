package org.objrdma.shell.internal;

import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.completers.StringsCompleter;
import org.apache.karaf.shell.support.table.ShellTable;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Access keys of the embedded store. {@code add} generates the secret and prints it this once; {@code list}
 * shows keys only.
 */
@Service
@Command(scope = "rdma", name = "credentials",
        description = "Lists, adds or removes access keys of the embedded store (org.objrdma.store.fs)")
public class CredentialsCommand implements Action {

    @Argument(index = 0, name = "action", required = false, description = "list (default), add or remove")
    @Completion(value = StringsCompleter.class, values = {"list", "add", "remove"})
    String action = "list";

    @Argument(index = 1, name = "accessKey", required = false,
            description = "access key id (add: generated when omitted)")
    @Completion(AccessKeyCompleter.class)
    String accessKey;

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    ConfigurationAdmin configurationAdmin;

    @Override
    public Object execute() throws Exception {
        StoreCredentials credentials = new StoreCredentials(configurationAdmin);
        switch (action) {
            case "list" -> {
                ShellTable table = new ShellTable();
                table.column("Access key");
                credentials.read().keySet().forEach(k -> table.addRow().addContent(k));
                table.print(System.out, !noFormat);
            }
            case "add" -> {
                var added = credentials.add(accessKey);
                System.out.println("Access key: " + added.getKey());
                System.out.println("Secret key: " + added.getValue());
                System.out.println("The secret is shown this once; it is stored in " + StoreCredentials.PID + ".");
            }
            case "remove" -> {
                if (accessKey == null) {
                    throw new IllegalArgumentException("remove needs an access key: rdma:credentials remove <key>");
                }
                credentials.remove(accessKey);
                System.out.println("Access key " + accessKey + " removed");
            }
            default -> throw new IllegalArgumentException("unknown action '" + action + "': use "
                    + List.of("list", "add", "remove"));
        }
        return null;
    }
}
