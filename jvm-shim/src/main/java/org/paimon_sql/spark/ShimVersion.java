package org.paimon_sql.spark;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The Spark version this shim was compiled against (written into the jar by the build) and the
 * check that the running Spark is the same major.minor version: the shim uses Spark-internal
 * classes (the Python data source's), which change between Spark releases.
 */
final class ShimVersion {
  static final String RESOURCE = "shim-build.properties";

  private ShimVersion() {}

  /** The Spark version of the build, or null for a jar without the resource. */
  static String builtFor() {
    try (InputStream in = ShimVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return null;
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("spark.version");
    } catch (IOException e) {
      return null;
    }
  }

  static String majorMinor(String version) {
    String[] parts = version.split("\\.");
    return parts.length >= 2 ? parts[0] + "." + parts[1] : version;
  }

  /** Throws when {@code running} is not the major.minor version the shim was built for. */
  static void check(String running) {
    String built = builtFor();
    if (built != null && !majorMinor(built).equals(majorMinor(running))) {
      throw new IllegalStateException(
          "The paimon_sql Spark shim was built for Spark " + built + ", but the running Spark is "
              + running + ": install paimon_sql built against Spark " + majorMinor(running)
              + " (pip rebuilds the shim against the pyspark it installs)");
    }
  }
}
