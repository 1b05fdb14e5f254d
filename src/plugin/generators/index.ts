// Code generators shipped with fogbank.
export * from './fogbank/index.ts';
