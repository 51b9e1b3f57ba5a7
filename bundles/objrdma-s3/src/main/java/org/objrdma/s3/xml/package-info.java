/** S3's XML: a writer for responses and a hardened parser for the request bodies S3 defines as XML. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.objrdma.s3.xml;
