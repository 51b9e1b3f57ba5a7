package org.objrdma.shell.internal;

import static org.objrdma.shell.internal.ServiceProperties.text;

import java.util.ArrayList;
import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.table.ShellTable;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.ObjectSummary;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Buckets and their usage through the {@link ObjectStore} services. The store SPI lists buckets per owner,
 * so the owners are {@code --owner}, or else the embedded store's configured access keys. Usage walks the
 * key listing (the fs store keeps it in memory: no disk access).
 */
@Service
@Command(scope = "rdma", name = "store", description = "Lists object stores, their buckets, objects and bytes")
public class StoreCommand implements Action {

    @Option(name = "--owner", multiValued = true, description = "access key whose buckets to list (default: the embedded store's keys)")
    List<String> owners;

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    BundleContext bundleContext;

    @Reference
    ConfigurationAdmin configurationAdmin;

    @Override
    public Object execute() throws Exception {
        List<String> who = owners != null ? owners
                : new ArrayList<>(new StoreCredentials(configurationAdmin).read().keySet());
        ShellTable table = new ShellTable();
        for (String column : List.of("Store", "Kind", "Root", "Bucket", "Owner", "Created", "Objects", "Bytes")) {
            table.column(column);
        }
        for (ServiceReference<ObjectStore> ref : bundleContext.getServiceReferences(ObjectStore.class, null)) {
            ObjectStore store = bundleContext.getService(ref);
            if (store == null) {
                continue;
            }
            try {
                String kind = text(ref, "objrdma.store");
                String root = text(ref, "objrdma.store.root");
                for (String owner : who) {
                    for (BucketInfo bucket : store.listBuckets(owner)) {
                        long[] usage = usage(store, bucket.name());
                        table.addRow().addContent(store.name(), kind, root, bucket.name(), bucket.owner(),
                                bucket.created(), usage[0], usage[1]);
                    }
                }
            } finally {
                bundleContext.ungetService(ref);
            }
        }
        table.print(System.out, !noFormat);
        return null;
    }

    /** Objects and bytes of {@code bucket}, page by page. */
    static long[] usage(ObjectStore store, String bucket) throws Exception {
        long objects = 0;
        long bytes = 0;
        ListRequest request = ListRequest.all();
        while (true) {
            ListPage page = store.list(bucket, request);
            for (ObjectSummary summary : page.objects()) {
                objects++;
                bytes += summary.size();
            }
            if (!page.truncated()) {
                return new long[] {objects, bytes};
            }
            request = request.withContinuationToken(page.nextContinuationToken());
        }
    }
}
