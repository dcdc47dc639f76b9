# The goodput image: every command of the goodput CLI (produce, simulate, streams, sink, prices, replay, report, compare).
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests install

FROM eclipse-temurin:17-jre
WORKDIR /app
COPY --from=build /src/runner/target/goodput-runner.jar /app/goodput-runner.jar
COPY --from=build /src/runner/target/lib /app/lib
COPY config /app/config
ENTRYPOINT ["java", "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=dev.goodput", "-cp", "/app/goodput-runner.jar:/app/lib/*", "dev.goodput.runner.Main"]
