package org.objrdma.store.fs.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Metatype of PID {@code org.objrdma.store.fs}; the values are parsed and checked by {@link FsStoreSettings}. */
@ObjectClassDefinition(name = "objrdma filesystem object store",
        description = "The embedded object store: buckets as directories, crash-safe object files.")
@interface FsStoreConfig {
    @AttributeDefinition(name = "root", description = "Absolute directory holding the store; empty means "
            + "${karaf.data}/objrdma/store.")
    String root() default "";

    @AttributeDefinition(name = "max.object.size", description = "Largest object in bytes, 1 .. 5 TiB.")
    long max_object_size() default 5L * 1024 * 1024 * 1024 * 1024;

    @AttributeDefinition(name = "fsync", description = "Force bytes and directory entries to disk before a write "
            + "returns. false is unsafe: a power loss may lose or tear writes that were acknowledged.")
    boolean fsync() default true;

    @AttributeDefinition(name = "credentials", type = AttributeType.PASSWORD, description = "Users as "
            + "ACCESSKEY:SECRET[,ACCESSKEY:SECRET...]. Empty at activation: one is generated and stored back "
            + "here; the log names its access key id, never the secret.")
    String credentials() default "";
}
