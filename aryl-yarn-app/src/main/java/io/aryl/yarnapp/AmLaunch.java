package io.aryl.yarnapp;

import java.io.File;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ClassUtil;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * How a client starts its ApplicationMaster: a JVM running the AM's main class from the client's
 * own jar, shipped into the AM's working directory, on Hadoop's application class path. The AM runs
 * from the same jar as the client ({@code yarn jar}), so the jar the client was loaded from is the
 * one shipped.
 *
 * <p>On a MiniYARNCluster ({@code yarn.is.minicluster}) the NodeManagers have neither a Hadoop
 * install nor a configuration of their own: as DistributedShell does, the AM's class path also
 * takes the client JVM's, and the client's configuration (the RM's address) is shipped as {@value
 * #CLIENT_CONF_FILE}; the jar may then be missing (the client runs from classes).
 */
public final class AmLaunch {
  /** The submitting client's configuration, in the AM's working directory on a MiniYARNCluster. */
  public static final String CLIENT_CONF_FILE = "yarn-site.xml";

  private final Configuration conf;
  private final Class<?> amMain;
  private final String jarFile;
  private final boolean miniCluster;
  private final Map<String, LocalResource> files = new HashMap<>();

  /**
   * @param amMain the AM's main class, whose jar is shipped
   * @param jarFile the jar's name in the AM's working directory
   */
  public AmLaunch(Configuration conf, Class<?> amMain, String jarFile) {
    this.conf = conf;
    this.amMain = amMain;
    this.jarFile = jarFile;
    this.miniCluster = conf.getBoolean(YarnConfiguration.IS_MINI_YARN_CLUSTER, false);
  }

  /** A file of the AM's working directory besides the jar and the configuration. */
  public AmLaunch file(String name, LocalResource resource) {
    files.put(name, resource);
    return this;
  }

  /**
   * Stages the AM's code: the jar {@code jarKey} names, else the one {@code amMain} was loaded
   * from; on a MiniYARNCluster the client's configuration too.
   *
   * @param jarKey the configuration key naming the jar, for a client not run from it (an IDE)
   * @param artifact the jar's artifact, as the refusal names it ({@code aryl-am})
   * @throws IllegalStateException when there is no jar to ship outside a MiniYARNCluster
   */
  public AmLaunch stageCode(Staging staging, String jarKey, String artifact) throws IOException {
    String jar = conf.get(jarKey, ClassUtil.findContainingJar(amMain));
    if (jar != null) {
      files.put(jarFile, staging.copyResource(new File(jar), jarFile));
    } else if (!miniCluster) {
      throw new IllegalStateException(
          "cannot find the " + artifact + " jar to ship: run from it (yarn jar) or set " + jarKey);
    }
    if (miniCluster) {
      files.put(CLIENT_CONF_FILE, staging.writeResource(CLIENT_CONF_FILE, conf::writeXml));
    }
    return this;
  }

  /**
   * Puts the AM's container in the submission: {@code amMemoryMb} and one vcore in partition {@code
   * nodeLabel} ("" the default partition; the application's label is set to the same, since the RM
   * replaces an empty AM label by the application's, and a missing application label by the queue's
   * default), its files, {@code env} with the class path, and the JVM's command line.
   */
  public void into(
      ApplicationSubmissionContext ctx, int amMemoryMb, String nodeLabel, Map<String, String> env) {
    Resource amResource = Resource.newInstance(amMemoryMb, 1);
    ResourceRequest amRequest =
        ResourceRequest.newInstance(Priority.newInstance(0), ResourceRequest.ANY, amResource, 1);
    amRequest.setNodeLabelExpression(nodeLabel);
    ctx.setNodeLabelExpression(nodeLabel);
    ctx.setAMContainerResourceRequests(List.of(amRequest));
    ctx.setResource(amResource);
    Map<String, String> amEnv = new HashMap<>(env);
    amEnv.put(Environment.CLASSPATH.name(), classpath());
    ctx.setAMContainerSpec(
        ContainerLaunchContext.newInstance(
            new HashMap<>(files), amEnv, List.of(command(amMemoryMb)), null, null, null));
  }

  /** The working directory, the jar, Hadoop's application class path (and the client's, mini). */
  String classpath() {
    String sep = ApplicationConstants.CLASS_PATH_SEPARATOR;
    StringBuilder cp =
        new StringBuilder(Environment.PWD.$$())
            .append(sep)
            .append(Environment.PWD.$$())
            .append('/')
            .append(jarFile);
    for (String entry :
        conf.getStrings(
            YarnConfiguration.YARN_APPLICATION_CLASSPATH,
            YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH)) {
      cp.append(sep).append(entry.trim());
    }
    if (miniCluster) {
      cp.append(sep).append(System.getProperty("java.class.path").replace(File.pathSeparator, sep));
    }
    return cp.toString();
  }

  /** The AM's JVM: a heap of 3/4 of its container (64 MB at least), output to its log dir. */
  String command(int amMemoryMb) {
    String log = ApplicationConstants.LOG_DIR_EXPANSION_VAR;
    return Environment.JAVA_HOME.$$()
        + "/bin/java -Xmx"
        + Math.max(64, amMemoryMb * 3 / 4)
        + "m "
        + amMain.getName()
        + " 1>"
        + log
        + "/AppMaster.stdout 2>"
        + log
        + "/AppMaster.stderr";
  }
}
