package io.aryl.sls;

import java.lang.reflect.Field;
import java.net.URL;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.sls.AMRunner;
import org.apache.hadoop.yarn.sls.RMRunner;
import org.apache.hadoop.yarn.sls.SLSRunner;

/**
 * The two places where a run reaches into hadoop-sls 3.4.2 beyond its public API, each checked with
 * a clear error.
 */
final class SlsInternals {
  private SlsInternals() {}

  /**
   * Fails unless the AMRunner loaded is aryl-sls's patched copy (see its header): with the jar's
   * own, every job of an SLS JSON trace is dropped, and a run would "finish" having simulated
   * nothing.
   */
  static void checkPatchedAmRunner() {
    try {
      var unused = AMRunner.class.getDeclaredMethod("asStrings", java.util.Map.class);
    } catch (NoSuchMethodException e) {
      URL from = AMRunner.class.getProtectionDomain().getCodeSource().getLocation();
      throw new IllegalStateException(
          "org.apache.hadoop.yarn.sls.AMRunner was loaded from "
              + from
              + ", not from aryl-sls: put aryl-sls's classes before hadoop-sls on the class path");
    }
  }

  /**
   * The ResourceManager SLS started: SLSRunner keeps it in a private field and offers no getter.
   */
  static ResourceManager rm(SLSRunner sls) {
    try {
      Field f = SLSRunner.class.getDeclaredField("rmRunner");
      f.setAccessible(true);
      return ((RMRunner) f.get(sls)).getRm();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("this hadoop-sls has no SLSRunner.rmRunner: " + e, e);
    }
  }
}
