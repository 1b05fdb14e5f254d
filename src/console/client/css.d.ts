// The stylesheet is bundled by esbuild into the console's one CSS file.
declare module '*.css';
