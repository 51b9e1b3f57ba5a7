package org.objrdma.verbs.internal.ffi;

import java.util.Map;

/** Names of the Linux x86-64 errno values libibverbs and its drivers report, for messages. */
public final class Errno {
    private Errno() {
    }

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    public static final int ENODATA = 61;
    public static final int ENOSYS = 38;
    public static final int EOVERFLOW = 75;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int ETIMEDOUT = 110;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(EPERM, "EPERM"), Map.entry(ENOENT, "ENOENT"), Map.entry(EIO, "EIO"),
            Map.entry(EAGAIN, "EAGAIN"), Map.entry(ENOMEM, "ENOMEM"), Map.entry(EACCES, "EACCES"),
            Map.entry(EFAULT, "EFAULT"), Map.entry(EBUSY, "EBUSY"), Map.entry(ENODEV, "ENODEV"),
            Map.entry(EINVAL, "EINVAL"), Map.entry(ENOSPC, "ENOSPC"), Map.entry(ENODATA, "ENODATA"), Map.entry(ENOSYS, "ENOSYS"),
            Map.entry(EOVERFLOW, "EOVERFLOW"), Map.entry(EPROTONOSUPPORT, "EPROTONOSUPPORT"),
            Map.entry(EOPNOTSUPP, "EOPNOTSUPP"), Map.entry(ETIMEDOUT, "ETIMEDOUT"));

    /** {@code EINVAL (22)}; unknown values as {@code errno 123}. */
    public static String describe(int errno) {
        String name = NAMES.get(errno);
        return name == null ? "errno " + errno : name + " (" + errno + ")";
    }
}
