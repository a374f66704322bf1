package com.sun.jersey.api.client;

/**
 * Stand-in for Jersey 1's exception of this name, which DistributedShell 3.4.2's ApplicationMaster
 * catches around its timeline publishing: its class must load for the ApplicationMaster to verify,
 * and Hadoop 3.5.0 ships Jersey 2 only. Never thrown (the timeline service is off in these tests).
 * CoexistenceIT puts it on the ApplicationMaster's class path through the test class path.
 */
public class ClientHandlerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ClientHandlerException(String message) {
    super(message);
  }
}
