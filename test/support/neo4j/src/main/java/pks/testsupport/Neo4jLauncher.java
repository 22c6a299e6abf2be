package pks.testsupport;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import inet.ipaddr.IPAddressString;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.kernel.api.procedure.GlobalProcedures;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * Starts an embedded Neo4j Community DBMS with Bolt on 127.0.0.1:PORT (no auth, no TLS), prints
 * {@code NEO4J_READY bolt://127.0.0.1:PORT} once Bolt accepts connections, and shuts down on
 * SIGTERM or when stdin reaches EOF (so it cannot outlive the test process that spawned it).
 *
 * <p>Usage: {@code Neo4jLauncher PORT HOME_DIR [--exit-when-ready] [--test-procedures]}.
 * {@code --exit-when-ready} exits right after the READY line; it is used for the AppCDS training run
 * (scripts/install-test-deps.sh). {@code --test-procedures} registers {@link StandInApoc}.
 *
 * <p>The server is hardened as CONTRACT §14.1 asks of every deployment: no {@code file:} URLs in
 * {@code LOAD CSV}, an empty import directory, and no Cypher-initiated connections to loopback,
 * private or link-local addresses.
 */
public final class Neo4jLauncher {
  private Neo4jLauncher() {}

  /** Loopback, private (RFC 1918, unique-local) and link-local ranges, IPv4 and IPv6. */
  private static final List<IPAddressString> INTERNAL_RANGES =
      List.of(
              "0.0.0.0/8",
              "127.0.0.0/8",
              "10.0.0.0/8",
              "172.16.0.0/12",
              "192.168.0.0/16",
              "169.254.0.0/16",
              "100.64.0.0/10",
              "::1/128",
              "::/128",
              "fc00::/7",
              "fe80::/10")
          .stream()
          .map(IPAddressString::new)
          .toList();

  public static void main(String[] args) throws Exception {
    List<String> flags = args.length >= 2 ? Arrays.asList(args).subList(2, args.length) : List.of();
    boolean exitWhenReady = flags.contains("--exit-when-ready");
    boolean testProcedures = flags.contains("--test-procedures");
    if (args.length < 2
        || !List.of("--exit-when-ready", "--test-procedures").containsAll(flags)) {
      System.err.println(
          "usage: Neo4jLauncher PORT HOME_DIR [--exit-when-ready] [--test-procedures]");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    Path home = Path.of(args[1]).toAbsolutePath();
    Path emptyImportDir = Files.createDirectories(home.resolve("import-empty"));

    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(home)
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
            .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
            .setConfig(GraphDatabaseSettings.auth_enabled, false)
            // Hardening (CONTRACT §14.1): LOAD CSV reads no local file and reaches no internal address.
            .setConfig(GraphDatabaseSettings.allow_file_urls, false)
            .setConfig(GraphDatabaseSettings.load_csv_file_url_root, emptyImportDir)
            .setConfig(GraphDatabaseInternalSettings.cypher_ip_blocklist, INTERNAL_RANGES)
            // Small, throwaway stores: keep memory and disk work at start-up low.
            .setConfig(GraphDatabaseSettings.pagecache_memory, 64L * 1024 * 1024)
            .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
            // Bolt otherwise waits 5 s + 5 s for idle thread pools at shutdown.
            .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(200))
            .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(200))
            .build();
    Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));

    GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    if (!db.isAvailable(TimeUnit.SECONDS.toMillis(60))) {
      System.err.println("default database did not become available");
      System.exit(1);
    }
    if (testProcedures) {
      GlobalProcedures procedures =
          ((GraphDatabaseAPI) db).getDependencyResolver().resolveDependency(GlobalProcedures.class);
      procedures.registerProcedure(StandInApoc.class);
      procedures.registerFunction(StandInApoc.class);
    }
    // Loads the Cypher stack now (and into the AppCDS archive on the training run): the first
    // query over Bolt is then ~1 s faster.
    db.executeTransactionally("MATCH (n) RETURN count(n) AS n");
    awaitPort(port);
    System.out.println("NEO4J_READY bolt://127.0.0.1:" + port);
    System.out.flush();
    if (exitWhenReady) {
      System.exit(0);
    }

    // Block until the parent closes our stdin (or dies), then exit; exit runs the shutdown hook.
    try {
      System.in.transferTo(OutputStream.nullOutputStream());
    } catch (IOException ignored) {
      // same as EOF
    }
    System.exit(0);
  }

  private static void awaitPort(int port) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Bolt port " + port + " not accepting connections", e);
        }
        Thread.sleep(50);
      }
    }
  }
}
