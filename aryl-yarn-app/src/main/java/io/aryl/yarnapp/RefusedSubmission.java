package io.aryl.yarnapp;

import java.io.IOException;
import java.util.regex.Pattern;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.apache.hadoop.yarn.exceptions.YarnException;

/**
 * The ResourceManager refused a submission: it rejected the application (an invalid or over-the-cap
 * Aryl shape, a queue the Capacity Scheduler refuses) or would not take it at all (a queue's {@code
 * acl_submit_applications}); or the client refused it because the cluster has nowhere to start its
 * ApplicationMaster (aryl-am's {@code AmPartition}). Nothing of the application runs. {@link
 * ClientCommandLine} tells it in one line with exit status {@value ClientCommandLine#USAGE}, as a
 * client tells an application the cluster cannot run.
 */
public final class RefusedSubmission extends YarnException {
  private static final long serialVersionUID = 1L;

  /**
   * A Java class name and ": " at the start of a message, as a remote exception's text carries its
   * cause's.
   */
  private static final Pattern CLASS_PREFIX =
      Pattern.compile("^(?:[a-z_$][\\w$]*\\.)+[A-Z][\\w$]*: ");

  public RefusedSubmission(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * What a failed {@code submitApplication} of {@code id} was: a refusal when the ResourceManager
   * rejected the application (it ended at once) or never took it (a queue's ACL, a request it does
   * not accept), with its reason and the staged files deleted; else {@code failure} itself (e.g. a
   * wait for the submission that timed out, the application still on its way).
   */
  public static YarnException of(
      YarnClient yarn, ApplicationId id, YarnException failure, Staging staging) {
    ApplicationReport r;
    try {
      r = yarn.getApplicationReport(id);
    } catch (ApplicationNotFoundException absent) {
      r = null;
    } catch (YarnException | IOException unknown) {
      return failure;
    }
    if (r != null
        && r.getYarnApplicationState() != YarnApplicationState.FAILED
        && r.getYarnApplicationState() != YarnApplicationState.KILLED) {
      return failure;
    }
    try {
      staging.delete(); // no AM will run to delete it
    } catch (IOException ignored) {
      // the refusal is what the submitter needs to hear
    }
    String diagnostics = r == null ? "" : String.valueOf(r.getDiagnostics()).strip();
    String why =
        diagnostics.isEmpty() || diagnostics.equals("null")
            ? plain(failure.getMessage())
            : plain(diagnostics);
    return new RefusedSubmission("the ResourceManager refused " + id + ": " + why, failure);
  }

  /**
   * The reason in the ResourceManager's words: its first line, without the class names a remote
   * exception puts before it (e.g. {@code org.apache.hadoop.security.AccessControlException: User
   * bob does not have permission ...}).
   */
  public static String plain(String message) {
    String m = String.valueOf(message).strip();
    int nl = m.indexOf('\n');
    m = nl < 0 ? m : m.substring(0, nl).strip();
    String before;
    do {
      before = m;
      m = CLASS_PREFIX.matcher(m).replaceFirst("");
    } while (!m.equals(before));
    return m;
  }
}
