package com.northwind.storefront;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The Northwind storefront: shipments, payments, quotes, accounts and inventory behind one Spring MVC
 * application. Flags besides Spring's own: {@code --port N} (or env PORT; default 8080) and
 * {@code --fixed} (the "fixed" profile: application-fixed.properties and the logback-spring.xml branch).
 */
@SpringBootApplication
public class StorefrontApplication {
    public static void main(String[] args) {
        List<String> springArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> springArgs.add("--server.port=" + args[++i]);
                case "--fixed" -> springArgs.add("--spring.profiles.active=fixed");
                default -> springArgs.add(args[i]);
            }
        }
        SpringApplication.run(StorefrontApplication.class, springArgs.toArray(new String[0]));
    }
}
