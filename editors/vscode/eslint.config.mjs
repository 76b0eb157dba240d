// Lint rules for the extension: typescript-eslint's recommended and type-checked rules.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "out/", "node_modules/", "*.vsix", "test/workspace/"] },
  {
    files: ["src/**/*.ts", "test/**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      eqeqeq: "error",
    },
  },
  {
    files: ["**/*.mjs", "media/**/*.js"],
    extends: [tseslint.configs.recommended],
  },
);
