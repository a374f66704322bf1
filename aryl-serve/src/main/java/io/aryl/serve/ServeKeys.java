package io.aryl.serve;

/**
 * Every name the client, the ApplicationMaster and the replicas share: configuration keys,
 * environment variables, file names. Defined here once.
 */
public final class ServeKeys {
  /** The YARN application type of an inference service (aryl-api's, which the controller reads). */
  public static final String APPLICATION_TYPE = io.aryl.api.serve.ServeStatus.APPLICATION_TYPE;

  /** Where the client stages a service's files, one directory per service. */
  public static final String STAGING_DIR = "aryl.serve.staging-dir";

  /** The aryl-serve jar to ship, when the client does not run from it. */
  public static final String AM_JAR = "aryl.serve.jar";

  /**
   * The node label of the AM's container ({@code ""}: the default partition, never a lent node).
   */
  public static final String AM_NODE_LABEL = "aryl.serve.am.node-label-expression";

  /** The port a replica serves on, given by the AM (environment variable of every replica). */
  public static final String PORT_ENV = "ARYL_SERVE_PORT";

  /** The replica's container id (environment variable of every replica). */
  public static final String REPLICA_ENV = "ARYL_SERVE_REPLICA";

  /** The service's spec, in the AM's working directory. */
  public static final String SPEC_FILE = "aryl-serve.json";

  /** The replica command, in every replica's working directory. */
  public static final String REPLICA_SCRIPT = "aryl-replica.sh";

  /** The default replica, a resource of the AM's package and a file of the replicas' directory. */
  public static final String DEFAULT_REPLICA_FILE = "serve.py";

  /** The jar in the AM's working directory. */
  public static final String AM_JAR_FILE = "aryl-serve.jar";

  /** A MiniYARNCluster client's configuration, shipped to the AM (its NMs have none). */
  public static final String CLIENT_CONF_FILE = "yarn-site.xml";

  /** The GPU resource. */
  public static final String GPU = "yarn.io/gpu";

  private ServeKeys() {}
}
