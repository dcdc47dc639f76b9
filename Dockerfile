# The goodput image: the goodput command line against a Kafka cluster (produce, simulate, streams, sink, prices, replay, report, compare); the local broker, the demo and the benchmarks run from a clone with ./goodput instead.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests install

FROM eclipse-temurin:17-jre
# curl for the healthchecks; a user of its own, not root
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app goodput
WORKDIR /app
COPY --from=build /src/runner/target/goodput-runner.jar /app/goodput-runner.jar
COPY --from=build /src/runner/target/lib /app/lib
COPY config /app/config
USER goodput
# a fixed heap, as ./goodput runs it: a generator on a growing heap collects often enough to skew its timing
ENV JAVA_TOOL_OPTIONS="-Xms2g -Xmx2g"
ENTRYPOINT ["java", "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=dev.goodput", "-cp", "/app/goodput-runner.jar:/app/lib/*", "dev.goodput.runner.Main"]
